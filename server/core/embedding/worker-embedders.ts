import type { EmbedModelSpec, EmbedTaskOutput } from '../tasks.js';
import { createEmbedder, type Embedder } from './onnx-embedder.js';

/**
 * The embedders of one worker thread, by model file: an ONNX session costs ~0.5 s and ~100-300 MB to
 * load, so each thread loads a model once and keeps it. The cache is per thread on purpose (each Piscina
 * worker imports this module once); it is not shared state of the server.
 */
const loaded = new Map<string, Promise<Embedder>>();

function embedderFor(spec: EmbedModelSpec): Promise<Embedder> {
  // By the whole spec, not the path: a model removed and imported again under its name may pool otherwise.
  const key = JSON.stringify([spec.onnxPath, spec.tokenizerPath, spec.pooling, spec.maxTokens, spec.normalize ?? true]);
  let e = loaded.get(key);
  if (!e) {
    // One intra-op thread: the pool already runs one task per core. LECTERN_EMBED_INT8=0 keeps matmuls in
    // fp32 (int8-matmul.ts): the vectors of the fp32 compute, e.g. to compare retrieval with the two.
    const int8MatMul = process.env.LECTERN_EMBED_INT8 !== '0';
    e = createEmbedder({
      modelPath: spec.onnxPath,
      tokenizerPath: spec.tokenizerPath,
      pooling: spec.pooling,
      normalize: spec.normalize,
      maxTokens: spec.maxTokens,
      threads: 1,
      int8MatMul,
    });
    e.catch(() => loaded.delete(key));
    loaded.set(key, e);
  }
  return e;
}

/** Embeds `texts` into one flat row-major buffer. */
export async function embedWith(spec: EmbedModelSpec, texts: string[]): Promise<EmbedTaskOutput> {
  let rows: Float32Array[];
  let embedder: Embedder;
  try {
    embedder = await embedderFor(spec);
    rows = await embedder.embed(texts, 8);
  } catch (err) {
    throw { code: 'EMBEDDING_FAILED', message: `${spec.onnxPath}: ${(err as Error).message}` };
  }
  const dimensions = rows[0]?.length ?? embedder.dimensions;
  const vectors = new Float32Array(rows.length * dimensions);
  rows.forEach((r, i) => vectors.set(r, i * dimensions));
  return { dimensions, vectors };
}

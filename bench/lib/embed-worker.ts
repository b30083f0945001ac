/**
 * Piscina task module for bench/embed.ts, in the house pattern: it exports a promise of its handler, so
 * the model loads once per worker thread before the thread takes work. The model comes in `workerData`
 * ({ modelPath, tokenizerPath, maxTokens, before? }); a task is a batch of texts and returns one Float32Array of
 * texts.length × dimensions, moved (not copied) back.
 */
import { move, workerData } from 'piscina';
import { createEmbedder } from '../../server/core/embedding/onnx-embedder.js';

const { modelPath, tokenizerPath, maxTokens, before } = workerData as {
  modelPath: string;
  tokenizerPath: string;
  maxTokens: number;
  before?: boolean;
};

export default (async () => {
  // `before`: the embedder's settings before int8 matmuls (fp32 matmuls, the rest as now), for
  // a before/after in one run.
  const embedder = await createEmbedder({
    modelPath,
    tokenizerPath,
    pooling: 'mean',
    maxTokens,
    threads: 1,
    ...(before ? { int8MatMul: false } : {}),
  });
  return async (texts: string[]): Promise<Float32Array> => {
    const vectors = await embedder.embed(texts, texts.length);
    const out = new Float32Array(vectors.length * embedder.dimensions);
    vectors.forEach((v, i) => out.set(v, i * embedder.dimensions));
    return move(out) as Float32Array;
  };
})();

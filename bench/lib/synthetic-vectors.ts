/**
 * Synthetic embeddings for the search benchmarks: 384-d unit vectors around random topic centres.
 * Uniformly random vectors have no neighbourhoods (every ANN index fails on them), so each vector is a
 * topic centre plus gaussian noise. bench/search.ts and bench/quantization-ceiling.ts share this
 * generator and its seeds so that they measure the same vectors.
 */
export const DIM = 384;
export const TOPICS = 10_000;

function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

/** n unit vectors: a random topic centre (or none: `centres` null) plus gaussian noise of length ~`noise`. */
export function clusteredVectors(centres: Float32Array | null, n: number, seed: number, noise: number): Float32Array {
  const r = xorshift(seed);
  const out = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const c = centres ? Math.floor(r() * (centres.length / DIM)) : 0;
    let norm = 0;
    for (let d = 0; d < DIM; d++) {
      const x = (centres ? centres[c * DIM + d]! : 0) + (noise * gaussian(r)) / Math.sqrt(DIM);
      out[i * DIM + d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIM; d++) out[i * DIM + d]! /= norm;
  }
  return out;
}

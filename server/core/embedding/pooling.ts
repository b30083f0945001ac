/** How token states become one sentence vector: sentence-transformers' pooling modes Lectern runs. */
export const POOLINGS = ['mean', 'cls', 'last'] as const;
export type Pooling = (typeof POOLINGS)[number];

/**
 * Pools one row of a [batch, seq, dim] hidden state into one vector, L2-normalised unless `normalize` is
 * false (a model without sentence-transformers' Normalize module). Mean pooling counts only real tokens
 * (the attention mask), and last-token pooling takes the last real one, so padding to the batch's longest
 * text changes nothing.
 */
export function poolRow(
  hidden: Float32Array,
  row: number,
  seqLen: number,
  dim: number,
  mask: ArrayLike<number>,
  pooling: Pooling,
  normalize = true,
): Float32Array {
  const out = new Float32Array(dim);
  const base = row * seqLen * dim;
  if (pooling === 'cls') {
    out.set(hidden.subarray(base, base + dim));
  } else if (pooling === 'last') {
    let last = 0;
    for (let t = 0; t < seqLen; t++) if (mask[t]) last = t;
    out.set(hidden.subarray(base + last * dim, base + (last + 1) * dim));
  } else {
    let n = 0;
    for (let t = 0; t < seqLen; t++) {
      if (!mask[t]) continue;
      n++;
      const off = base + t * dim;
      for (let d = 0; d < dim; d++) out[d]! += hidden[off + d]!;
    }
    if (n > 0) for (let d = 0; d < dim; d++) out[d]! /= n;
  }
  return normalize ? l2Normalize(out) : out;
}

export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

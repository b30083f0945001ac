/** Cosine similarity of two vectors of one length (not assumed normalised: remote models may not be). */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * A similarity as search reports it: within 0..1 (an opposite direction is as unrelated as a right angle
 * for retrieval) and rounded to 4 places, which is finer than any two embedding models agree on.
 */
export function readableScore(cosine: number): number {
  return Math.round(Math.min(1, Math.max(0, cosine)) * 10_000) / 10_000;
}

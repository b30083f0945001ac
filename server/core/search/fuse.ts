import type { Candidate } from './candidates.js';

/** The usual constant of reciprocal rank fusion (Cormack et al., 2009): damps the weight of the top ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion: each list gives 1 / (RRF_K + rank); scores of different kinds (cosine, BM25)
 * never need to be made comparable, only their orders are used.
 */
export function reciprocalRankFusion(lists: Candidate[][], k = RRF_K): Candidate[] {
  const fused = new Map<number, number>();
  for (const list of lists) list.forEach((c, rank) => fused.set(c.id, (fused.get(c.id) ?? 0) + 1 / (k + rank + 1)));
  return [...fused].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

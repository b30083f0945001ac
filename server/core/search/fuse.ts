import type { Candidate } from '../../store/repos/search-index.js';

/**
 * The keyword list's share of a hybrid score (the vector list has the rest). Chosen on half of SciFact's train
 * queries (even ids); nDCG@10 is flat from 0.35 to 0.5, so the value is not a knife edge (bench/retrieval.ts).
 */
export const KEYWORD_WEIGHT = 0.4;

/** Each score divided by the list's best, so unbounded BM25 and cosine share one 0..1 scale per query. */
function scaled(list: Candidate[]): { of: Map<number, number>; floor: number } {
  const top = Math.max(...list.map((c) => c.score));
  // A best score at or below zero (all cosines negative) leaves the scores as they are: order is kept.
  const by = top > 0 ? top : 1;
  const of = new Map(list.map((c) => [c.id, c.score / by]));
  return { of, floor: list.length ? Math.min(...of.values()) : 0 };
}

/**
 * Hybrid fusion by score: weight × keyword + (1 − weight) × vector, each scaled by its list's best score.
 * Unlike reciprocal rank fusion it keeps how far apart the scores are, so a document far ahead in one list
 * is not pulled level with one that merely ranks next to it (on SciFact: nDCG@10 0.741 against RRF's 0.714).
 * A candidate one list did not reach gets that list's lowest score: its own is at most that.
 */
export function scoreFusion(keyword: Candidate[], vector: Candidate[], keywordWeight = KEYWORD_WEIGHT): Candidate[] {
  const k = scaled(keyword);
  const v = scaled(vector);
  const ids = new Set([...k.of.keys(), ...v.of.keys()]);
  return [...ids]
    .map((id) => ({
      id,
      score: keywordWeight * (k.of.get(id) ?? k.floor) + (1 - keywordWeight) * (v.of.get(id) ?? v.floor),
    }))
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

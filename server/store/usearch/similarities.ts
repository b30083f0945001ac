import type { VectorIndex } from './vector-index.js';

/**
 * How deep the index is searched for the keys asked about, first and at most (x4 a round): reading a
 * similarity from the index costs microseconds (a 5,000-deep search of 5,183 vectors ~4 ms, in a scratch
 * timing loop), embedding a hit's text again (what the caller does for keys left out) tens of milliseconds.
 */
export const COSINE_LOOKUP = { first: 1_000, most: 16_000 };

/**
 * The cosine similarity of `query` to the vectors under `keys`, by key, read from ever deeper searches of
 * the HNSW index (it cannot look a stored vector up by key). Keys beyond the deepest search are left out.
 */
export function indexSimilarities(
  index: Pick<VectorIndex, 'search' | 'size'>,
  query: Float32Array,
  keys: readonly number[],
  depth = COSINE_LOOKUP,
): Map<number, number> {
  const out = new Map<number, number>();
  let missing = [...keys];
  for (let k = depth.first; missing.length > 0 && k <= depth.most; k *= 4) {
    const found = index.search(query, k);
    const byKey = new Map(found.keys.map((key, i) => [Number(key), 1 - found.distances[i]!]));
    for (const key of missing) {
      const cosine = byKey.get(key);
      if (cosine !== undefined) out.set(key, cosine);
    }
    missing = missing.filter((key) => !out.has(key));
    if (k >= index.size) break;
  }
  return out;
}

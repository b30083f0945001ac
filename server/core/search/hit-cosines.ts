import type { VectorIndex } from '../../store/vector-index.js';
import type { EmbeddingProvider } from '../embedding/providers.js';
import { cosineSimilarity } from './similarity.js';

/** A search hit: its chunk_vectors id, its key in the collection's index and the text that was embedded. */
export interface HitToScore {
  id: number;
  key: number;
  text: string;
}

/**
 * How deep the index is searched for hits the vector list did not reach, first and at most (x4 a round):
 * reading a similarity from the index costs microseconds (a 5,000-deep search of 5,183 vectors ~4 ms, in a scratch timing loop),
 * embedding a hit's text again tens of milliseconds.
 */
export const COSINE_LOOKUP = { first: 1_000, most: 16_000 };

/**
 * The cosine similarity of the query and each hit, by chunk_vectors id. `known` holds the vector list's own.
 * Hits found by keyword only are looked up in deeper searches of the index; the few beyond them are embedded
 * again with the collection's model: the text is the one that was embedded, so this is the similarity its
 * stored vector has (up to the index's quantization).
 */
export async function hitCosines(
  hits: readonly HitToScore[],
  known: ReadonlyMap<number, number>,
  index: VectorIndex,
  provider: Pick<EmbeddingProvider, 'embed' | 'batchSize'>,
  query: Float32Array,
  depth = COSINE_LOOKUP,
): Promise<Map<number, number>> {
  const out = new Map(known);
  let missing = hits.filter((h) => !out.has(h.id));
  for (let k = depth.first; missing.length > 0 && k <= depth.most; k *= 4) {
    const found = index.search(query, k);
    const byKey = new Map(found.keys.map((key, i) => [Number(key), 1 - found.distances[i]!]));
    for (const h of missing) {
      const cosine = byKey.get(h.key);
      if (cosine !== undefined) out.set(h.id, cosine);
    }
    missing = missing.filter((h) => !out.has(h.id));
    if (k >= index.size) break;
  }
  for (let i = 0; i < missing.length; i += provider.batchSize) {
    const part = missing.slice(i, i + provider.batchSize);
    const vectors = await provider.embed(part.map((h) => h.text));
    part.forEach((h, j) => out.set(h.id, vectors[j] ? cosineSimilarity(query, vectors[j]) : 0));
  }
  return out;
}

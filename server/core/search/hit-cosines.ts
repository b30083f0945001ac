import type { EmbeddingProvider } from '../embedding/providers.js';
import { cosineSimilarity } from './similarity.js';

/** A search hit: its chunk_vectors id, its key in the collection's vectors and the text that was embedded. */
export interface HitToScore {
  id: number;
  key: number;
  text: string;
}

/** The similarities the collection's vectors give for these keys, by key (store.search.vectors.similarities). */
export type SimilarityLookup = (keys: readonly number[]) => Promise<Map<number, number>>;

/**
 * The cosine similarity of the query and each hit, by chunk_vectors id. `known` holds the vector list's own.
 * Hits found by keyword only are looked up in the collection's vectors; the few those leave out are embedded
 * again with the collection's model: the text is the one that was embedded, so this is the similarity its
 * stored vector has (up to the index's quantization).
 */
export async function hitCosines(
  hits: readonly HitToScore[],
  known: ReadonlyMap<number, number>,
  lookup: SimilarityLookup,
  provider: Pick<EmbeddingProvider, 'embed' | 'batchSize'>,
  query: Float32Array,
): Promise<Map<number, number>> {
  const out = new Map(known);
  let missing = hits.filter((h) => !out.has(h.id));
  if (missing.length > 0) {
    const byKey = await lookup(missing.map((h) => h.key));
    for (const h of missing) {
      const cosine = byKey.get(h.key);
      if (cosine !== undefined) out.set(h.id, cosine);
    }
    missing = missing.filter((h) => !out.has(h.id));
  }
  for (let i = 0; i < missing.length; i += provider.batchSize) {
    const part = missing.slice(i, i + provider.batchSize);
    const vectors = await provider.embed(part.map((h) => h.text));
    part.forEach((h, j) => out.set(h.id, vectors[j] ? cosineSimilarity(query, vectors[j]) : 0));
  }
  return out;
}

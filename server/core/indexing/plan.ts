import { createHash } from 'node:crypto';
import type { CollectionsRepo } from '../../store/repos/collections-repo.js';
import type { VectorCollections, VectorCollectionSpec } from '../../store/repos/search-index.js';

export interface ChunkToEmbed {
  chunk_id: string;
  text: string;
  text_hash: string;
}

export interface EmbeddingPlan {
  /** Approved and edited chunks: what the collection must hold for this job. */
  wanted: number;
  todo: ChunkToEmbed[];
  unchanged: number;
  /** Vectors to drop: changed or no longer accepted chunks, and the job's vectors in other collections. */
  remove: { id: number; collection: string; key: number }[];
}

export const textHash = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * What an embed of `jobId` into collection `c` has to do. A chunk whose embedded text is unchanged (same
 * sha256) and whose vector is still in the collection is left alone: re-embedding after one edit costs one chunk.
 */
export async function planEmbedding(
  d: {
    collections: Pick<CollectionsRepo, 'indexableChunks' | 'vectorsOfJob'>;
    vectors: Pick<VectorCollections, 'present'>;
  },
  jobId: string,
  c: VectorCollectionSpec,
): Promise<EmbeddingPlan> {
  // One after the other: a plan is made inside a transaction, whose one connection answers one query at a time.
  const indexable = await d.collections.indexableChunks(jobId);
  const existing = await d.collections.vectorsOfJob(jobId);
  const accepted = indexable
    .filter((x) => x.text.trim() !== '')
    .map((x) => ({ chunk_id: x.chunk_id, text: x.text, text_hash: textHash(x.text) }));
  const current = new Map(existing.filter((r) => r.collection === c.name).map((r) => [r.chunk_id, r]));
  const present = await d.vectors.present(
    c,
    [...current.values()].map((r) => r.key),
  );
  const keep = new Set<number>();
  const todo: ChunkToEmbed[] = [];
  for (const x of accepted) {
    const row = current.get(x.chunk_id);
    if (row && row.text_hash === x.text_hash && present.has(row.key)) keep.add(row.id);
    else todo.push(x);
  }
  const remove = existing
    .filter((r) => !keep.has(r.id))
    .map((r) => ({ id: r.id, collection: r.collection, key: r.key }));
  return { wanted: accepted.length, todo, unchanged: keep.size, remove };
}

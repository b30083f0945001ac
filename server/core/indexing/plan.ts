import { createHash } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { chunks, chunkVectors } from '../../../drizzle/schema.js';
import type { DbLike } from '../../store/db.js';

export interface ChunkToEmbed {
  chunkId: string;
  text: string;
  textHash: string;
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
 * What an embed of `jobId` into `collection` has to do. A chunk whose embedded text is unchanged (same
 * sha256) and whose vector is still in the index is left alone: re-embedding after one edit costs one chunk.
 */
export function planEmbedding(db: DbLike, jobId: string, collection: string, inIndex: (key: number) => boolean): EmbeddingPlan {
  const accepted = db
    .select({ chunkId: chunks.chunkId, text: chunks.text, editedText: chunks.editedText })
    .from(chunks)
    .where(and(eq(chunks.jobId, jobId), inArray(chunks.status, ['approved', 'edited'])))
    .orderBy(chunks.orderIndex)
    .all()
    .map((c) => {
      const text = c.editedText ?? c.text;
      return { chunkId: c.chunkId, text, textHash: textHash(text) };
    })
    .filter((c) => c.text.trim() !== '');
  const existing = db
    .select({ id: chunkVectors.id, collection: chunkVectors.collection, key: chunkVectors.key, chunkId: chunkVectors.chunkId, textHash: chunkVectors.textHash })
    .from(chunkVectors)
    .where(eq(chunkVectors.jobId, jobId))
    .all();
  const current = new Map(existing.filter((r) => r.collection === collection).map((r) => [r.chunkId, r]));
  const keep = new Set<number>();
  const todo: ChunkToEmbed[] = [];
  for (const c of accepted) {
    const row = current.get(c.chunkId);
    if (row && row.textHash === c.textHash && inIndex(row.key)) keep.add(row.id);
    else todo.push(c);
  }
  const remove = existing.filter((r) => !keep.has(r.id)).map((r) => ({ id: r.id, collection: r.collection, key: r.key }));
  return { wanted: accepted.length, todo, unchanged: keep.size, remove };
}

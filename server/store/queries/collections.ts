/** The collections repository's conditions and column selections, the same on both backends. */
import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { ChunkRef } from '../repos/collections-repo.js';
import { INDEXABLE } from '../rows/collections.js';
import { columnsAs, type EitherTable } from './tables.js';

/** A job's status after an embed that did not commit: `indexed` if it had been indexed before, else `finalized`. */
export const restingStatus = sql`CASE WHEN EXISTS (SELECT 1 FROM job_indexes ji WHERE ji.job_id = jobs.job_id AND ji.indexed_at IS NOT NULL) THEN 'indexed' ELSE 'finalized' END`;

/** A vector row's columns as a `ChunkVectorRecord`. */
export const vectorColumns = <V extends EitherTable<'chunkVectors'>>(v: V) =>
  columnsAs(v, {
    id: 'id',
    collection: 'collection',
    key: 'key',
    job_id: 'jobId',
    chunk_id: 'chunkId',
    text_hash: 'textHash',
  });

/** A vector row and the chunk it names (joined by `vectorChunk`) as a `VectorHit`. */
export const hitColumns = <V extends EitherTable<'chunkVectors'>, C extends EitherTable<'chunks'>>(v: V, c: C) => ({
  ...columnsAs(v, { id: 'id', key: 'key', job_id: 'jobId', chunk_id: 'chunkId', text: 'text', text_hash: 'textHash' }),
  ...columnsAs(c, {
    chunk_type: 'chunkType',
    page_numbers: 'pageNumbers',
    section_path: 'sectionPath',
    block_ids: 'blockIds',
  }),
});

/** Joins a vector row to the chunk it was embedded from. */
export const vectorChunk = (v: EitherTable<'chunkVectors'>, c: EitherTable<'chunks'>): SQL | undefined =>
  and(eq(c.jobId, v.jobId), eq(c.chunkId, v.chunkId));

/** Which of the chunks named are approved or edited: one condition, an arm a job with its chunk ids. */
export function stillIndexableWhere(c: EitherTable<'chunks'>, refs: readonly ChunkRef[]): SQL | undefined {
  const byJob = new Map<string, string[]>();
  for (const r of refs) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r.chunk_id]);
  return and(
    or(...[...byJob].map(([jobId, ids]) => and(eq(c.jobId, jobId), inArray(c.chunkId, ids)))),
    inArray(c.status, INDEXABLE),
  );
}

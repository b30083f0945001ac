import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { chunks } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { ChunkFilter, ChunksRepo } from '../repos/jobs-repo.js';
import { chunkSet, chunkView, newChunkRow } from '../rows/jobs.js';
import { insertMany } from './insert-many.js';
import type { TxGate } from './tx-gate.js';

function conditions(jobId: string, f: ChunkFilter): SQL[] {
  const conds: SQL[] = [eq(chunks.jobId, jobId)];
  if (f.status) conds.push(eq(chunks.status, f.status));
  if (f.chunk_type) conds.push(eq(chunks.chunkType, f.chunk_type));
  if (f.stale !== undefined) conds.push(eq(chunks.stale, f.stale));
  if (f.page !== undefined)
    conds.push(sql`EXISTS (SELECT 1 FROM json_each(${chunks.pageNumbers}) WHERE value = ${f.page})`);
  if (f.block_id !== undefined)
    conds.push(sql`EXISTS (SELECT 1 FROM json_each(${chunks.blockIds}) WHERE value = ${f.block_id})`);
  return conds;
}

/** Ids deleted per statement. */
const DELETE_SLICE = 400;

export function sqliteChunks(db: Db, gate: TxGate): ChunksRepo {
  const one = (jobId: string, chunkId: string) => and(eq(chunks.jobId, jobId), eq(chunks.chunkId, chunkId));
  return {
    get: (jobId, chunkId) =>
      gate.call(() => {
        const row = db.select().from(chunks).where(one(jobId, chunkId)).get();
        return row ? chunkView(row) : null;
      }),

    list: (jobId, q) =>
      gate.call(() => paginate(db, chunks, and(...conditions(jobId, q)), [asc(chunks.orderIndex)], q, chunkView)),

    find: (jobId, filter = {}) =>
      gate.call(() =>
        db
          .select()
          .from(chunks)
          .where(and(...conditions(jobId, filter)))
          .orderBy(asc(chunks.orderIndex))
          .all()
          .map(chunkView),
      ),

    ids: (jobId) =>
      gate.call(() =>
        db
          .select({ id: chunks.chunkId })
          .from(chunks)
          .where(eq(chunks.jobId, jobId))
          .all()
          .map((r) => r.id),
      ),

    insertMany: (jobId, list) =>
      gate.call(() => {
        insertMany(
          db,
          chunks,
          list.map((c) => newChunkRow(jobId, c)),
        );
      }),

    update: (jobId, chunkId, set, ifVersion) =>
      gate.call(() => {
        const where =
          ifVersion === undefined ? one(jobId, chunkId) : and(one(jobId, chunkId), eq(chunks.version, ifVersion));
        const row = db.update(chunks).set(chunkSet(set)).where(where).returning().get();
        return row ? chunkView(row) : null;
      }),

    deleteMany: (jobId, chunkIds) =>
      gate.call(() => {
        for (let i = 0; i < chunkIds.length; i += DELETE_SLICE) {
          db.delete(chunks)
            .where(and(eq(chunks.jobId, jobId), inArray(chunks.chunkId, chunkIds.slice(i, i + DELETE_SLICE))))
            .run();
        }
      }),

    markStale: (jobId, blockIds) =>
      gate.call(() => {
        if (!blockIds.length) return 0;
        // One statement for any number of blocks: a bulk rejection of thousands must not scan chunks per block.
        return db
          .update(chunks)
          .set({ stale: true })
          .where(
            and(
              eq(chunks.jobId, jobId),
              sql`EXISTS (SELECT 1 FROM json_each(${chunks.blockIds}) WHERE value IN (SELECT value FROM json_each(${JSON.stringify(blockIds)})))`,
            ),
          )
          .run().changes;
      }),
  };
}

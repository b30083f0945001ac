import { and, asc, desc, eq, gt, gte, inArray, lt, ne, sql } from 'drizzle-orm';
import { blocks } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { BlockRecord, BlocksRepo } from '../repos/jobs-repo.js';
import { blockRecord as record, blockSet } from '../rows/jobs.js';
import type { TxGate } from './tx-gate.js';
import { blockConditions } from '../queries/jobs.js';

type BlockInsert = typeof blocks.$inferInsert;

/** SQLite binds at most 32,766 variables: long id lists are read in slices. */
const SLICE = 5000;

export function sqliteBlocks(db: Db, gate: TxGate): BlocksRepo {
  const one = (jobId: string, blockId: string) => and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId));
  return {
    get: (jobId, blockId) =>
      gate.call(() => {
        const row = db.select().from(blocks).where(one(jobId, blockId)).get();
        return row ? record(row) : null;
      }),

    getMany: (jobId, blockIds) =>
      gate.call(() => {
        const out: BlockRecord[] = [];
        for (let i = 0; i < blockIds.length; i += SLICE) {
          const ids = blockIds.slice(i, i + SLICE);
          for (const row of db
            .select()
            .from(blocks)
            .where(and(eq(blocks.jobId, jobId), inArray(blocks.blockId, ids)))
            .all())
            out.push(record(row));
        }
        return out;
      }),

    list: (jobId, q) =>
      gate.call(() => {
        const order =
          q.sort === 'confidence'
            ? [sql`${blocks.confidence} IS NULL`, asc(blocks.confidence), asc(blocks.orderIndex)]
            : [asc(blocks.orderIndex)];
        return paginate(db, blocks, and(...blockConditions(blocks, jobId, q)), order, q, record);
      }),

    find: (jobId, filter = {}) =>
      gate.call(() =>
        db
          .select()
          .from(blocks)
          .where(and(...blockConditions(blocks, jobId, filter)))
          .orderBy(asc(blocks.orderIndex))
          .all()
          .map(record),
      ),

    neighbour: (jobId, orderIndex, side) =>
      gate.call(() => {
        const row =
          side === 'before'
            ? db
                .select()
                .from(blocks)
                .where(and(eq(blocks.jobId, jobId), lt(blocks.orderIndex, orderIndex)))
                .orderBy(desc(blocks.orderIndex))
                .limit(1)
                .get()
            : db
                .select()
                .from(blocks)
                .where(and(eq(blocks.jobId, jobId), gt(blocks.orderIndex, orderIndex)))
                .orderBy(asc(blocks.orderIndex))
                .limit(1)
                .get();
        return row ? record(row) : null;
      }),

    firstOrderIndex: (jobId) =>
      gate.call(
        () =>
          db
            .select({ o: sql<number | null>`MIN(${blocks.orderIndex})` })
            .from(blocks)
            .where(eq(blocks.jobId, jobId))
            .get()?.o ?? 0,
      ),

    insert: (jobId, block) =>
      gate.call(() =>
        record(
          db
            .insert(blocks)
            .values({ ...blockSet(block), jobId, blockId: block.block_id } as BlockInsert)
            .returning()
            .get(),
        ),
      ),

    update: (jobId, blockId, set, ifVersion) =>
      gate.call(() => {
        const where =
          ifVersion === undefined ? one(jobId, blockId) : and(one(jobId, blockId), eq(blocks.version, ifVersion));
        const row = db.update(blocks).set(blockSet(set)).where(where).returning().get();
        return row ? record(row) : null;
      }),

    delete: (jobId, blockId) =>
      gate.call(() => {
        db.delete(blocks).where(one(jobId, blockId)).run();
      }),

    shiftFrom: (jobId, fromOrder, except) =>
      gate.call(() => {
        const conds = [eq(blocks.jobId, jobId), gte(blocks.orderIndex, fromOrder)];
        if (except) conds.push(ne(blocks.blockId, except));
        db.update(blocks)
          .set({ orderIndex: sql`${blocks.orderIndex} + 1` })
          .where(and(...conds))
          .run();
      }),

    compactOrder: (jobId) =>
      gate.call(() => {
        // One statement: a window over the job's blocks.
        db.run(sql`UPDATE blocks SET order_index = r.n FROM (
          SELECT block_id AS id, ROW_NUMBER() OVER (ORDER BY order_index) - 1 AS n FROM blocks WHERE job_id = ${jobId}
        ) AS r WHERE blocks.job_id = ${jobId} AND blocks.block_id = r.id AND blocks.order_index <> r.n`);
      }),

    fingerprint: (jobId) =>
      gate.call(
        () =>
          // Count and order too: a merge removes a block while raising another's version, a move changes only order.
          db
            .select({
              v: sql<string>`COALESCE(SUM(${blocks.version}), 0) || ':' || COUNT(*) || ':' || COALESCE(SUM(${blocks.orderIndex} * ${blocks.version}), 0)`,
            })
            .from(blocks)
            .where(eq(blocks.jobId, jobId))
            .get()?.v ?? '',
      ),
  };
}

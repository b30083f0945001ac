import { and, asc, desc, eq, gt, gte, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import { blocks } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { BlockChanges, BlockFilter, BlockRecord, BlocksRepo, NewBlock } from '../repos/jobs-repo.js';
import type { TxGate } from './tx-gate.js';

type BlockRow = typeof blocks.$inferSelect;
type BlockInsert = typeof blocks.$inferInsert;

// Written out field by field: a long document's thousands of rows pass through these on every save and read.
const record = (r: BlockRow): BlockRecord => ({
  job_id: r.jobId,
  block_id: r.blockId,
  order_index: r.orderIndex,
  page: r.page,
  type: r.type,
  text: r.text,
  bbox: r.bbox,
  heading_level: r.headingLevel,
  indent_level: r.indentLevel,
  hierarchy_path: r.hierarchyPath,
  table_grid: r.tableGrid as BlockRecord['table_grid'],
  language: r.language,
  source: r.source,
  confidence: r.confidence,
  flagged: r.flagged,
  status: r.status,
  edited_text: r.editedText,
  edited_type: r.editedType,
  reviewer_note: r.reviewerNote,
  version: r.version,
  current_revision_id: r.currentRevisionId,
  updated_at: r.updatedAt,
});

/** An extracted block's row: every row sets the same columns (insert-many.ts), review columns at their defaults. */
export const newBlockRow = (jobId: string, b: NewBlock): BlockInsert => ({
  jobId,
  blockId: b.block_id,
  orderIndex: b.order_index,
  page: b.page,
  type: b.type,
  text: b.text,
  bbox: b.bbox,
  headingLevel: b.heading_level,
  indentLevel: b.indent_level,
  hierarchyPath: b.hierarchy_path,
  tableGrid: b.table_grid,
  language: b.language,
  source: b.source,
  confidence: b.confidence,
  flagged: b.flagged,
});

/** Fields to set, as a row's (those not given are left as they are). */
const blockSet = (c: BlockChanges): Partial<BlockInsert> => ({
  orderIndex: c.order_index,
  page: c.page,
  type: c.type,
  text: c.text,
  bbox: c.bbox,
  headingLevel: c.heading_level,
  indentLevel: c.indent_level,
  hierarchyPath: c.hierarchy_path,
  tableGrid: c.table_grid,
  language: c.language,
  source: c.source,
  confidence: c.confidence,
  flagged: c.flagged,
  status: c.status,
  editedText: c.edited_text,
  editedType: c.edited_type,
  reviewerNote: c.reviewer_note,
  version: c.version,
  currentRevisionId: c.current_revision_id,
  updatedAt: c.updated_at,
});

/** SQLite binds at most 32,766 variables: long id lists are read in slices. */
const SLICE = 5000;

function conditions(jobId: string, f: BlockFilter): SQL[] {
  const conds: SQL[] = [eq(blocks.jobId, jobId)];
  if (f.status) conds.push(eq(blocks.status, f.status));
  if (f.not_status) conds.push(ne(blocks.status, f.not_status));
  // The type that counts, so a block retyped by a reviewer is found under its new type.
  if (f.type) conds.push(sql`COALESCE(${blocks.editedType}, ${blocks.type}) = ${f.type}`);
  if (f.page !== undefined) conds.push(eq(blocks.page, f.page));
  if (f.flagged !== undefined) conds.push(eq(blocks.flagged, f.flagged));
  if (f.source) conds.push(eq(blocks.source, f.source));
  return conds;
}

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
          for (const row of db.select().from(blocks).where(and(eq(blocks.jobId, jobId), inArray(blocks.blockId, ids))).all()) out.push(record(row));
        }
        return out;
      }),

    list: (jobId, q) =>
      gate.call(() => {
        const order =
          q.sort === 'confidence' ? [sql`${blocks.confidence} IS NULL`, asc(blocks.confidence), asc(blocks.orderIndex)] : [asc(blocks.orderIndex)];
        return paginate(db, blocks, and(...conditions(jobId, q)), order, q, record);
      }),

    find: (jobId, filter = {}) =>
      gate.call(() => db.select().from(blocks).where(and(...conditions(jobId, filter))).orderBy(asc(blocks.orderIndex)).all().map(record)),

    neighbour: (jobId, orderIndex, side) =>
      gate.call(() => {
        const row =
          side === 'before'
            ? db.select().from(blocks).where(and(eq(blocks.jobId, jobId), lt(blocks.orderIndex, orderIndex))).orderBy(desc(blocks.orderIndex)).limit(1).get()
            : db.select().from(blocks).where(and(eq(blocks.jobId, jobId), gt(blocks.orderIndex, orderIndex))).orderBy(asc(blocks.orderIndex)).limit(1).get();
        return row ? record(row) : null;
      }),

    firstOrderIndex: (jobId) =>
      gate.call(() => db.select({ o: sql<number | null>`MIN(${blocks.orderIndex})` }).from(blocks).where(eq(blocks.jobId, jobId)).get()?.o ?? 0),

    insert: (jobId, block) =>
      gate.call(() => record(db.insert(blocks).values({ ...blockSet(block), jobId, blockId: block.block_id } as BlockInsert).returning().get())),

    update: (jobId, blockId, set, ifVersion) =>
      gate.call(() => {
        const where = ifVersion === undefined ? one(jobId, blockId) : and(one(jobId, blockId), eq(blocks.version, ifVersion));
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
        db.update(blocks).set({ orderIndex: sql`${blocks.orderIndex} + 1` }).where(and(...conds)).run();
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
            .select({ v: sql<string>`COALESCE(SUM(${blocks.version}), 0) || ':' || COUNT(*) || ':' || COALESCE(SUM(${blocks.orderIndex} * ${blocks.version}), 0)` })
            .from(blocks)
            .where(eq(blocks.jobId, jobId))
            .get()?.v ?? '',
      ),
  };
}

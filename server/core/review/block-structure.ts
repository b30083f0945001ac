import { randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gt, gte, lt, ne, sql } from 'drizzle-orm';
import { blocks, revisions } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView, type BlockView } from '../views.js';
import { snapshotOf, stateOf, writeBlockVersion, type BlockRevision, type BlockRow } from './block-change.js';
import { duplicateIds, listedBlocks, type BlockRef } from './blocks-bulk.js';
import { markChunksStale, requireState } from './review-state.js';

/*
 * Split, merge and move change which blocks exist and in what order, not only their review state. Each is
 * one transaction; every block it touches gets one audit revision whose snapshots carry the whole row and
 * the block it followed (`order_after`), plus `structure: { op, group }` shared by all revisions of the
 * operation. Undo (POST /blocks/undo) takes back a whole group from any one of its revisions, so a split
 * is never half undone (which would duplicate text).
 *
 * Positions are recorded relative to the preceding block rather than as order_index values: inserting
 * shifts the blocks after the insertion point, so absolute values do not survive later operations.
 */

export type StructureOp = 'split' | 'merge' | 'move';
export const STRUCTURE_OPS: readonly string[] = ['split', 'merge', 'move'];

/** What the client sends to POST /blocks/undo to take the operation back. */
export interface UndoRef {
  block_id: string;
  version: number;
  revision_id: string;
}

export interface StructureResult {
  job_id: string;
  /** Blocks changed or created, at their new versions, in reading order. */
  blocks: BlockView[];
  /** Blocks that no longer exist (merged into the first). */
  removed: string[];
  /** One per block touched: send any of them (or all) to POST /jobs/{id}/blocks/undo to take the operation back. */
  revisions: UndoRef[];
  stale_chunks: number;
}

interface Snapshot {
  status: string;
  version: number;
  text: string;
  order_after: string | null;
  row: BlockRow;
  structure: { op: StructureOp; group: string };
}

const blockRow = (tx: DbLike, jobId: string, id: string) => tx.select().from(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, id))).get();

function requireBlock(tx: DbLike, jobId: string, id: string): BlockRow {
  const row = blockRow(tx, jobId, id);
  if (!row) throw new AppError('BLOCK_NOT_FOUND', `block ${id} does not exist in job ${jobId}`);
  return row;
}

/** The block just before `row` in reading order, or null when it is first. */
function predecessor(tx: DbLike, row: BlockRow): BlockRow | null {
  return tx.select().from(blocks).where(and(eq(blocks.jobId, row.jobId), lt(blocks.orderIndex, row.orderIndex))).orderBy(desc(blocks.orderIndex)).limit(1).get() ?? null;
}

function successor(tx: DbLike, row: BlockRow): BlockRow | null {
  return tx.select().from(blocks).where(and(eq(blocks.jobId, row.jobId), gt(blocks.orderIndex, row.orderIndex))).orderBy(asc(blocks.orderIndex)).limit(1).get() ?? null;
}

/**
 * The order_index that puts a block right after `afterId` (first when null), making room by shifting the
 * blocks from that point on (one statement). `self` is left out of the shift: it is the block being placed.
 */
function slotAfter(tx: DbLike, jobId: string, afterId: string | null, self: string | null): number {
  let target: number;
  if (afterId === null) {
    const first = tx.select({ o: sql<number | null>`MIN(${blocks.orderIndex})` }).from(blocks).where(eq(blocks.jobId, jobId)).get();
    target = first?.o ?? 0;
  } else {
    const after = blockRow(tx, jobId, afterId);
    if (!after) throw new AppError('VERSION_CONFLICT', `block ${afterId}, where this block belongs, no longer exists`, { missing: [afterId] });
    target = after.orderIndex + 1;
  }
  const conds = [eq(blocks.jobId, jobId), gte(blocks.orderIndex, target)];
  if (self) conds.push(ne(blocks.blockId, self));
  tx.update(blocks).set({ orderIndex: sql`${blocks.orderIndex} + 1` }).where(and(...conds)).run();
  return target;
}

/**
 * Numbers the job's blocks 0..n-1 again in their order: inserting leaves gaps and removing holes, and
 * order_index is what clients show as a block's place ("#12"). One statement (a window over the job).
 */
function compactOrder(tx: DbLike, jobId: string): void {
  tx.run(sql`UPDATE blocks SET order_index = r.n FROM (
    SELECT block_id AS id, ROW_NUMBER() OVER (ORDER BY order_index) - 1 AS n FROM blocks WHERE job_id = ${jobId}
  ) AS r WHERE blocks.job_id = ${jobId} AND blocks.block_id = r.id AND blocks.order_index <> r.n`);
}

function snapshot(row: BlockRow, orderAfter: string | null, structure: Snapshot['structure']): Snapshot {
  return { ...snapshotOf(stateOf(row), row.version), text: row.text, order_after: orderAfter, row, structure };
}

const effectiveText = (b: BlockRow) => b.editedText ?? b.text;

/**
 * A block whose edit is folded into its text by a split or merge is no longer `edited` unless its type
 * edit remains: the edited words become the text the parts start from (the audit keeps the old reading).
 */
const foldedStatus = (status: string, editedType: string | null) => (status === 'edited' && editedType === null ? 'approved' : status);

function loadForChange(tx: DbLike, jobId: string, id: string, version: number): BlockRow {
  const cur = requireBlock(tx, jobId, id);
  if (cur.version !== version) throw new AppError('VERSION_CONFLICT', `block ${id} is at version ${cur.version}, not ${version}`, { current: blockView(cur) });
  return cur;
}

function bboxUnion(rows: BlockRow[]): BlockRow['bbox'] {
  const boxes = rows.map((r) => r.bbox);
  if (boxes.some((b) => !b) || new Set(rows.map((r) => r.page)).size > 1) return rows[0]!.bbox;
  const bs = boxes as NonNullable<BlockRow['bbox']>[];
  return { x0: Math.min(...bs.map((b) => b.x0)), y0: Math.min(...bs.map((b) => b.y0)), x1: Math.max(...bs.map((b) => b.x1)), y1: Math.max(...bs.map((b) => b.y1)) };
}

export function createBlockStructure({ db, clock }: { db: Db; clock: Clock }) {
  function run(jobId: string, what: string, body: (tx: DbLike, now: string, group: string) => Omit<StructureResult, 'job_id' | 'stale_chunks'> & { staleFrom: string[] }): StructureResult {
    return db.transaction((tx) => {
      requireState(findJob(tx, jobId), ['ready_for_review'], what);
      const { staleFrom, ...out } = body(tx, isoNow(clock), randomUUID());
      compactOrder(tx, jobId);
      // The answer's blocks at their final places.
      const blocksNow = out.blocks.map((b) => blockView(requireBlock(tx, jobId, b.block_id)));
      return { job_id: jobId, ...out, blocks: blocksNow, stale_chunks: markChunksStale(tx, jobId, staleFrom) };
    });
  }

  /** Writes `next` over `cur` (version + 1) with one revision; returns the row and its undo reference. */
  function rewrite(tx: DbLike, cur: BlockRow, next: Partial<BlockRow>, o: { reviewer: string; now: string; op: StructureOp; group: string; beforeAfter: string | null; afterAfter: string | null }) {
    const structure = { op: o.op, group: o.group };
    const planned = { ...cur, ...next, version: cur.version + 1 };
    const { row, revisionId } = writeBlockVersion(
      tx,
      cur,
      next,
      {
        action: o.op,
        before: { ...snapshot(cur, o.beforeAfter, structure) },
        after: { ...snapshot(planned, o.afterAfter, structure), row: undefined },
        editedText: planned.editedText,
        editedType: planned.editedType,
        reviewerNote: planned.reviewerNote,
      },
      o,
    );
    return { row, ref: { block_id: row.blockId, version: row.version, revision_id: revisionId } };
  }

  return {
    /** Cuts a block in two at a character offset of its effective text; the second part follows it as a new block. */
    split(jobId: string, blockId: string, req: { at: number; version: number }, reviewer: string): StructureResult {
      return run(jobId, 'split a block', (tx, now, group) => {
        const cur = loadForChange(tx, jobId, blockId, req.version);
        const text = effectiveText(cur);
        const head = text.slice(0, req.at).trimEnd();
        const tail = text.slice(req.at).trimStart();
        if (req.at <= 0 || req.at >= text.length || !head || !tail) {
          throw new AppError('VALIDATION_FAILED', `split at ${req.at} leaves an empty part: give an offset inside the text (1..${text.length - 1}) with words on both sides`, {
            field: 'at',
            length: text.length,
          });
        }
        const status = foldedStatus(cur.status, cur.editedType);
        const first = rewrite(tx, cur, { text: head, editedText: null, status, tableGrid: null }, { reviewer, now, op: 'split', group, beforeAfter: null, afterAfter: null });
        const newId = `${cur.blockId}.${randomBytes(3).toString('hex')}`;
        const orderIndex = slotAfter(tx, jobId, cur.blockId, null);
        const created: BlockRow = {
          ...first.row,
          blockId: newId,
          orderIndex,
          text: tail,
          editedText: null,
          version: 1,
          currentRevisionId: null,
          updatedAt: now,
        };
        const revisionId = writeRevision(tx, {
          jobId,
          entityType: 'block',
          entityId: newId,
          previousRevisionId: null,
          action: 'split',
          before: null,
          after: { ...snapshot(created, cur.blockId, { op: 'split', group }), row: undefined, split_from: cur.blockId },
          originalText: tail,
          editedType: created.editedType,
          reviewerId: reviewer,
          reviewerNote: created.reviewerNote,
          timestamp: now,
        });
        const second = tx.insert(blocks).values({ ...created, currentRevisionId: revisionId }).returning().get();
        return {
          blocks: [blockView(first.row), blockView(second)],
          removed: [],
          revisions: [first.ref, { block_id: newId, version: 1, revision_id: revisionId }],
          staleFrom: [cur.blockId],
        };
      });
    },

    /** Joins blocks into the first of them in reading order; the others are removed. */
    merge(jobId: string, req: { items: BlockRef[]; separator?: string }, reviewer: string): StructureResult {
      const dup = duplicateIds(req.items);
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'merge blocks', (tx, now, group) => {
        const rows = listedBlocks(tx, jobId, req.items).sort((a, b) => a.orderIndex - b.orderIndex);
        const [keep, ...gone] = rows as [BlockRow, ...BlockRow[]];
        const statuses = new Set(rows.map((r) => foldedStatus(r.status, r.editedType)));
        // Blocks reviewed alike stay so; a mix (an approved part with a rejected one) needs a fresh look.
        const status = statuses.size === 1 ? [...statuses][0]! : 'pending';
        const confidences = rows.map((r) => r.confidence).filter((c): c is number => c !== null);
        const first = rewrite(
          tx,
          keep,
          {
            text: rows.map(effectiveText).join(req.separator ?? ' '),
            editedText: null,
            status: foldedStatus(status, keep.editedType),
            tableGrid: null,
            bbox: bboxUnion(rows),
            flagged: rows.some((r) => r.flagged),
            confidence: confidences.length ? Math.min(...confidences) : null,
          },
          { reviewer, now, op: 'merge', group, beforeAfter: null, afterAfter: null },
        );
        const refs: UndoRef[] = [first.ref];
        for (const g of gone) {
          const revisionId = writeRevision(tx, {
            jobId,
            entityType: 'block',
            entityId: g.blockId,
            previousRevisionId: g.currentRevisionId,
            action: 'merge',
            before: { ...snapshot(g, predecessor(tx, g)?.blockId ?? null, { op: 'merge', group }) },
            after: null,
            originalText: g.text,
            reviewerId: reviewer,
            timestamp: now,
          });
          tx.delete(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, g.blockId))).run();
          refs.push({ block_id: g.blockId, version: g.version, revision_id: revisionId });
        }
        return { blocks: [blockView(first.row)], removed: gone.map((g) => g.blockId), revisions: refs, staleFrom: rows.map((r) => r.blockId) };
      });
    },

    /** Puts a block right after another one (or first, for null): the reading order a reviewer fixes by dragging. */
    move(jobId: string, blockId: string, req: { version: number; after_block_id: string | null }, reviewer: string): StructureResult {
      if (req.after_block_id === blockId) throw new AppError('VALIDATION_FAILED', 'a block cannot follow itself', { field: 'after_block_id' });
      return run(jobId, 'move a block', (tx, now, group) => {
        const cur = loadForChange(tx, jobId, blockId, req.version);
        if (req.after_block_id !== null) requireBlock(tx, jobId, req.after_block_id);
        const oldPrev = predecessor(tx, cur);
        const oldNext = successor(tx, cur);
        if ((oldPrev?.blockId ?? null) === req.after_block_id) return { blocks: [], removed: [], revisions: [], staleFrom: [] };
        const orderIndex = slotAfter(tx, jobId, req.after_block_id, cur.blockId);
        const moved = rewrite(tx, cur, { orderIndex }, { reviewer, now, op: 'move', group, beforeAfter: oldPrev?.blockId ?? null, afterAfter: req.after_block_id });
        const newNext = successor(tx, moved.row);
        const around = [cur.blockId, oldPrev?.blockId, oldNext?.blockId, req.after_block_id, newNext?.blockId].filter((x): x is string => !!x);
        return { blocks: [blockView(moved.row)], removed: [], revisions: [moved.ref], staleFrom: around };
      });
    },
  };
}
export type BlockStructure = ReturnType<typeof createBlockStructure>;

interface StructuralRevision {
  revisionId: string;
  entityId: string;
  before: Snapshot | null;
  after: Omit<Snapshot, 'row'> | null;
}

/**
 * Undo for split, merge and move, inside the caller's transaction: every revision of each named operation
 * is taken back together. Blocks the operation created are removed, removed ones come back where they were,
 * changed ones get their rows back. Anything changed since (by anyone) is a 409 listing it, nothing written.
 * Returns the revision ids handled (so the caller leaves them out), the blocks restored and those to re-chunk.
 */
export function undoStructure(tx: DbLike, jobId: string, revisionIds: string[], reviewer: string, now: string) {
  const named = revisionIds.length
    ? tx
        .select()
        .from(revisions)
        .where(and(eq(revisions.jobId, jobId), sql`${revisions.revisionId} IN (SELECT value FROM json_each(${JSON.stringify(revisionIds)}))`))
        .all()
        .filter((r) => STRUCTURE_OPS.includes(r.action) && r.entityType === 'block')
    : [];
  const groupOf = (r: { before: unknown; after: unknown }) => ((r.after ?? r.before) as Partial<Snapshot> | null)?.structure?.group;
  const groups = [...new Set(named.map(groupOf).filter((g): g is string => !!g))];
  const handled = new Set(named.map((r) => r.revisionId));
  const restored: BlockRow[] = [];
  const changed: string[] = [];
  for (const group of groups) {
    const revs = tx
      .select()
      .from(revisions)
      .where(and(eq(revisions.jobId, jobId), ne(revisions.action, 'undo'), sql`json_extract(COALESCE(${revisions.after}, ${revisions.before}), '$.structure.group') = ${group}`))
      .orderBy(asc(revisions.seq))
      .all()
      .map((r) => ({ revisionId: r.revisionId, entityId: r.entityId, before: r.before as Snapshot | null, after: r.after as StructuralRevision['after'] }));
    for (const r of revs) handled.add(r.revisionId);
    const stale = revs.flatMap((r) => {
      const cur = blockRow(tx, jobId, r.entityId);
      const ok = r.after === null ? !cur : !!cur && cur.version === r.after.version;
      return ok ? [] : [{ block_id: r.entityId, version: r.after?.version ?? null, current: cur ? blockView(cur) : null }];
    });
    if (stale.length) throw new AppError('VERSION_CONFLICT', `${stale.length} block(s) changed after the ${revs[0]?.before?.structure.op ?? revs[0]?.after?.structure.op} being undone`, { stale });
    const undoRevision = (r: StructuralRevision, version: number): BlockRevision => ({
      action: 'undo',
      before: r.after ? { ...r.after } : null,
      after: r.before ? { ...r.before, row: undefined, version } : null,
      originalText: r.before?.row.text ?? null,
      editedText: r.before?.row.editedText ?? null,
      editedType: r.before?.row.editedType ?? null,
      reviewerNote: r.before?.row.reviewerNote ?? null,
      undoesRevisionId: r.revisionId,
    });
    const write = (id: string, prevRevision: string | null, r: StructuralRevision, version: number) =>
      writeRevision(tx, { jobId, entityType: 'block', entityId: id, previousRevisionId: prevRevision, reviewerId: reviewer, timestamp: now, ...undoRevision(r, version) });
    // Created blocks go first, so the rows they split from read whole again.
    for (const r of revs.filter((x) => x.before === null)) {
      const cur = blockRow(tx, jobId, r.entityId)!;
      write(r.entityId, cur.currentRevisionId, r, cur.version + 1);
      tx.delete(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, r.entityId))).run();
    }
    for (const r of revs.filter((x) => x.before !== null && x.after !== null)) {
      const cur = blockRow(tx, jobId, r.entityId)!;
      const b = r.before!;
      const orderIndex = b.structure.op === 'move' ? slotAfter(tx, jobId, b.order_after, cur.blockId) : cur.orderIndex;
      const { jobId: _j, blockId: _b, version: _v, currentRevisionId: _c, updatedAt: _u, orderIndex: _o, ...fields } = b.row;
      const { row } = writeBlockVersion(tx, cur, { ...fields, orderIndex }, undoRevision(r, cur.version + 1), { reviewer, now });
      restored.push(row);
      changed.push(row.blockId, ...[predecessor(tx, row)?.blockId, successor(tx, row)?.blockId].filter((x): x is string => !!x));
    }
    // Removed blocks come back in their old reading order, each after the block it followed.
    const removed = revs.filter((x) => x.after === null).sort((a, b) => a.before!.row.orderIndex - b.before!.row.orderIndex);
    for (const r of removed) {
      const b = r.before!;
      const version = b.version + 1;
      const revisionId = write(r.entityId, b.row.currentRevisionId, r, version);
      const orderIndex = slotAfter(tx, jobId, b.order_after, null);
      const row = tx.insert(blocks).values({ ...b.row, orderIndex, version, currentRevisionId: revisionId, updatedAt: now }).returning().get();
      restored.push(row);
      changed.push(row.blockId);
    }
  }
  if (groups.length) {
    compactOrder(tx, jobId);
    return { handled, restored: restored.map((r) => requireBlock(tx, jobId, r.blockId)), changed };
  }
  return { handled, restored, changed };
}

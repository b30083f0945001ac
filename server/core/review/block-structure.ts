import { randomBytes, randomUUID } from 'node:crypto';
import type { BlockChanges, BlockRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView, type BlockView } from '../views.js';
import { snapshotOf, stateOf, writeBlockVersion, type BlockRevision } from './block-change.js';
import { duplicateIds, listedBlocks, type BlockRef } from './blocks-bulk.js';
import { requireState } from './review-state.js';

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

/**
 * A block's whole row as a snapshot keeps it, with the field names the audit trail has always shown
 * (jobId, orderIndex, editedText…): undo reads rows written by every version of Lectern.
 */
interface SnapshotRow {
  text: string;
  editedText: string | null;
  editedType: string | null;
  reviewerNote: string | null;
  orderIndex: number;
  currentRevisionId: string | null;
  [field: string]: unknown;
}

const snapshotRow = (b: BlockRecord): SnapshotRow =>
  Object.fromEntries(
    Object.entries(b).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  ) as SnapshotRow;
const recordOf = (row: SnapshotRow): BlockRecord =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  ) as unknown as BlockRecord;

interface Snapshot {
  status: string;
  version: number;
  text: string;
  order_after: string | null;
  row: SnapshotRow;
  structure: { op: StructureOp; group: string };
}

type Tx = Pick<Repositories, 'blocks' | 'revisions'>;

async function requireBlock(tx: Tx, jobId: string, id: string): Promise<BlockRecord> {
  const row = await tx.blocks.get(jobId, id);
  if (!row) throw new AppError('BLOCK_NOT_FOUND', `block ${id} does not exist in job ${jobId}`);
  return row;
}

/** The block just before `row` in reading order, or null when it is first. */
const predecessor = (tx: Tx, row: BlockRecord) => tx.blocks.neighbour(row.job_id, row.order_index, 'before');
const successor = (tx: Tx, row: BlockRecord) => tx.blocks.neighbour(row.job_id, row.order_index, 'after');

/**
 * The order_index that puts a block right after `afterId` (first when null), making room by shifting the
 * blocks from that point on (one statement). `self` is left out of the shift: it is the block being placed.
 */
async function slotAfter(tx: Tx, jobId: string, afterId: string | null, self: string | null): Promise<number> {
  let target: number;
  if (afterId === null) target = await tx.blocks.firstOrderIndex(jobId);
  else {
    const after = await tx.blocks.get(jobId, afterId);
    if (!after)
      throw new AppError('VERSION_CONFLICT', `block ${afterId}, where this block belongs, no longer exists`, {
        missing: [afterId],
      });
    target = after.order_index + 1;
  }
  await tx.blocks.shiftFrom(jobId, target, self);
  return target;
}

function snapshot(row: BlockRecord, orderAfter: string | null, structure: Snapshot['structure']): Snapshot {
  return {
    ...snapshotOf(stateOf(row), row.version),
    text: row.text,
    order_after: orderAfter,
    row: snapshotRow(row),
    structure,
  };
}

const effectiveText = (b: BlockRecord) => b.edited_text ?? b.text;

/**
 * A block whose edit is folded into its text by a split or merge is no longer `edited` unless its type
 * edit remains: the edited words become the text the parts start from (the audit keeps the old reading).
 */
const foldedStatus = (status: string, editedType: string | null) =>
  status === 'edited' && editedType === null ? 'approved' : status;

async function loadForChange(tx: Tx, jobId: string, id: string, version: number): Promise<BlockRecord> {
  const cur = await requireBlock(tx, jobId, id);
  if (cur.version !== version)
    throw new AppError('VERSION_CONFLICT', `block ${id} is at version ${cur.version}, not ${version}`, {
      current: blockView(cur),
    });
  return cur;
}

function bboxUnion(rows: BlockRecord[]): BlockRecord['bbox'] {
  const boxes = rows.map((r) => r.bbox);
  if (boxes.some((b) => !b) || new Set(rows.map((r) => r.page)).size > 1) return rows[0]!.bbox;
  const bs = boxes as NonNullable<BlockRecord['bbox']>[];
  return {
    x0: Math.min(...bs.map((b) => b.x0)),
    y0: Math.min(...bs.map((b) => b.y0)),
    x1: Math.max(...bs.map((b) => b.x1)),
    y1: Math.max(...bs.map((b) => b.y1)),
  };
}

type StructureBody = (
  tx: Repositories,
  now: string,
  group: string,
) => Promise<Omit<StructureResult, 'job_id' | 'stale_chunks'> & { staleFrom: string[] }>;

export function createBlockStructure({ store, clock }: { store: Store; clock: Clock }) {
  function run(jobId: string, what: string, body: StructureBody): Promise<StructureResult> {
    return store.transaction(async (tx) => {
      requireState(await findJob(tx, jobId), ['ready_for_review'], what);
      const { staleFrom, ...out } = await body(tx, isoNow(clock), randomUUID());
      await tx.blocks.compactOrder(jobId);
      // The answer's blocks at their final places.
      const blocksNow: BlockView[] = [];
      for (const b of out.blocks) blocksNow.push(blockView(await requireBlock(tx, jobId, b.block_id)));
      return { job_id: jobId, ...out, blocks: blocksNow, stale_chunks: await tx.chunks.markStale(jobId, staleFrom) };
    });
  }

  /** Writes `next` over `cur` (version + 1) with one revision; returns the row and its undo reference. */
  async function rewrite(
    tx: Tx,
    cur: BlockRecord,
    next: BlockChanges,
    o: {
      reviewer: string;
      now: string;
      op: StructureOp;
      group: string;
      beforeAfter: string | null;
      afterAfter: string | null;
    },
  ) {
    const structure = { op: o.op, group: o.group };
    const planned: BlockRecord = { ...cur, ...next, version: cur.version + 1 };
    const { row, revisionId } = await writeBlockVersion(
      tx,
      cur,
      next,
      {
        action: o.op,
        before: { ...snapshot(cur, o.beforeAfter, structure) },
        after: { ...snapshot(planned, o.afterAfter, structure), row: undefined },
        edited_text: planned.edited_text,
        edited_type: planned.edited_type,
        reviewer_note: planned.reviewer_note,
      },
      o,
    );
    return { row, ref: { block_id: row.block_id, version: row.version, revision_id: revisionId } };
  }

  return {
    /** Cuts a block in two at a character offset of its effective text; the second part follows it as a new block. */
    split(
      jobId: string,
      blockId: string,
      req: { at: number; version: number },
      reviewer: string,
    ): Promise<StructureResult> {
      return run(jobId, 'split a block', async (tx, now, group) => {
        const cur = await loadForChange(tx, jobId, blockId, req.version);
        const text = effectiveText(cur);
        const head = text.slice(0, req.at).trimEnd();
        const tail = text.slice(req.at).trimStart();
        if (req.at <= 0 || req.at >= text.length || !head || !tail) {
          throw new AppError(
            'VALIDATION_FAILED',
            `split at ${req.at} leaves an empty part: give an offset inside the text (1..${text.length - 1}) with words on both sides`,
            {
              field: 'at',
              length: text.length,
            },
          );
        }
        const status = foldedStatus(cur.status, cur.edited_type);
        const first = await rewrite(
          tx,
          cur,
          { text: head, edited_text: null, status, table_grid: null },
          { reviewer, now, op: 'split', group, beforeAfter: null, afterAfter: null },
        );
        const newId = `${cur.block_id}.${randomBytes(3).toString('hex')}`;
        const orderIndex = await slotAfter(tx, jobId, cur.block_id, null);
        const created: BlockRecord = {
          ...first.row,
          block_id: newId,
          order_index: orderIndex,
          text: tail,
          edited_text: null,
          version: 1,
          current_revision_id: null,
          updated_at: now,
        };
        const revisionId = await tx.revisions.insert({
          job_id: jobId,
          entity_type: 'block',
          entity_id: newId,
          previous_revision_id: null,
          action: 'split',
          before: null,
          after: {
            ...snapshot(created, cur.block_id, { op: 'split', group }),
            row: undefined,
            split_from: cur.block_id,
          },
          original_text: tail,
          edited_type: created.edited_type,
          reviewer_id: reviewer,
          reviewer_note: created.reviewer_note,
          timestamp: now,
        });
        const { job_id: _job, ...fields } = created;
        const second = await tx.blocks.insert(jobId, { ...fields, current_revision_id: revisionId });
        return {
          blocks: [blockView(first.row), blockView(second)],
          removed: [],
          revisions: [first.ref, { block_id: newId, version: 1, revision_id: revisionId }],
          staleFrom: [cur.block_id],
        };
      });
    },

    /** Joins blocks into the first of them in reading order; the others are removed. */
    async merge(
      jobId: string,
      req: { items: BlockRef[]; separator?: string },
      reviewer: string,
    ): Promise<StructureResult> {
      const dup = duplicateIds(req.items);
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'merge blocks', async (tx, now, group) => {
        const rows = (await listedBlocks(tx, jobId, req.items)).sort((a, b) => a.order_index - b.order_index);
        const [keep, ...gone] = rows as [BlockRecord, ...BlockRecord[]];
        const statuses = new Set(rows.map((r) => foldedStatus(r.status, r.edited_type)));
        // Blocks reviewed alike stay so; a mix (an approved part with a rejected one) needs a fresh look.
        const status = statuses.size === 1 ? [...statuses][0]! : 'pending';
        const confidences = rows.map((r) => r.confidence).filter((c): c is number => c !== null);
        const first = await rewrite(
          tx,
          keep,
          {
            text: rows.map(effectiveText).join(req.separator ?? ' '),
            edited_text: null,
            status: foldedStatus(status, keep.edited_type),
            table_grid: null,
            bbox: bboxUnion(rows),
            flagged: rows.some((r) => r.flagged),
            confidence: confidences.length ? Math.min(...confidences) : null,
          },
          { reviewer, now, op: 'merge', group, beforeAfter: null, afterAfter: null },
        );
        const refs: UndoRef[] = [first.ref];
        for (const g of gone) {
          const revisionId = await tx.revisions.insert({
            job_id: jobId,
            entity_type: 'block',
            entity_id: g.block_id,
            previous_revision_id: g.current_revision_id,
            action: 'merge',
            before: { ...snapshot(g, (await predecessor(tx, g))?.block_id ?? null, { op: 'merge', group }) },
            after: null,
            original_text: g.text,
            reviewer_id: reviewer,
            timestamp: now,
          });
          await tx.blocks.delete(jobId, g.block_id);
          refs.push({ block_id: g.block_id, version: g.version, revision_id: revisionId });
        }
        return {
          blocks: [blockView(first.row)],
          removed: gone.map((g) => g.block_id),
          revisions: refs,
          staleFrom: rows.map((r) => r.block_id),
        };
      });
    },

    /** Puts a block right after another one (or first, for null): the reading order a reviewer fixes by dragging. */
    async move(
      jobId: string,
      blockId: string,
      req: { version: number; after_block_id: string | null },
      reviewer: string,
    ): Promise<StructureResult> {
      if (req.after_block_id === blockId)
        throw new AppError('VALIDATION_FAILED', 'a block cannot follow itself', { field: 'after_block_id' });
      return run(jobId, 'move a block', async (tx, now, group) => {
        const cur = await loadForChange(tx, jobId, blockId, req.version);
        if (req.after_block_id !== null) await requireBlock(tx, jobId, req.after_block_id);
        const oldPrev = await predecessor(tx, cur);
        const oldNext = await successor(tx, cur);
        if ((oldPrev?.block_id ?? null) === req.after_block_id)
          return { blocks: [], removed: [], revisions: [], staleFrom: [] };
        const orderIndex = await slotAfter(tx, jobId, req.after_block_id, cur.block_id);
        const moved = await rewrite(
          tx,
          cur,
          { order_index: orderIndex },
          { reviewer, now, op: 'move', group, beforeAfter: oldPrev?.block_id ?? null, afterAfter: req.after_block_id },
        );
        const newNext = await successor(tx, moved.row);
        const around = [
          cur.block_id,
          oldPrev?.block_id,
          oldNext?.block_id,
          req.after_block_id,
          newNext?.block_id,
        ].filter((x): x is string => !!x);
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
export async function undoStructure(tx: Tx, jobId: string, revisionIds: string[], reviewer: string, now: string) {
  const named = (await tx.revisions.getMany(jobId, revisionIds)).filter(
    (r) => STRUCTURE_OPS.includes(r.action) && r.entity_type === 'block',
  );
  const groupOf = (r: { before: unknown; after: unknown }) =>
    ((r.after ?? r.before) as Partial<Snapshot> | null)?.structure?.group;
  const groups = [...new Set(named.map(groupOf).filter((g): g is string => !!g))];
  const handled = new Set(named.map((r) => r.revision_id));
  const restored: BlockRecord[] = [];
  const changed: string[] = [];
  for (const group of groups) {
    const revs: StructuralRevision[] = (await tx.revisions.structureGroup(jobId, group)).map((r) => ({
      revisionId: r.revision_id,
      entityId: r.entity_id,
      before: r.before as Snapshot | null,
      after: r.after as StructuralRevision['after'],
    }));
    for (const r of revs) handled.add(r.revisionId);
    const stale: { block_id: string; version: number | null; current: BlockView | null }[] = [];
    for (const r of revs) {
      const cur = await tx.blocks.get(jobId, r.entityId);
      const ok = r.after === null ? !cur : !!cur && cur.version === r.after.version;
      if (!ok)
        stale.push({ block_id: r.entityId, version: r.after?.version ?? null, current: cur ? blockView(cur) : null });
    }
    if (stale.length)
      throw new AppError(
        'VERSION_CONFLICT',
        `${stale.length} block(s) changed after the ${revs[0]?.before?.structure.op ?? revs[0]?.after?.structure.op} being undone`,
        { stale },
      );
    const undoRevision = (r: StructuralRevision, version: number): BlockRevision => ({
      action: 'undo',
      before: r.after ? { ...r.after } : null,
      after: r.before ? { ...r.before, row: undefined, version } : null,
      original_text: r.before?.row.text ?? null,
      edited_text: r.before?.row.editedText ?? null,
      edited_type: r.before?.row.editedType ?? null,
      reviewer_note: r.before?.row.reviewerNote ?? null,
      undoes_revision_id: r.revisionId,
    });
    const write = (id: string, prevRevision: string | null, r: StructuralRevision, version: number) =>
      tx.revisions.insert({
        job_id: jobId,
        entity_type: 'block',
        entity_id: id,
        previous_revision_id: prevRevision,
        reviewer_id: reviewer,
        timestamp: now,
        ...undoRevision(r, version),
      });
    // Created blocks go first, so the rows they split from read whole again.
    for (const r of revs.filter((x) => x.before === null)) {
      const cur = (await tx.blocks.get(jobId, r.entityId))!;
      await write(r.entityId, cur.current_revision_id, r, cur.version + 1);
      await tx.blocks.delete(jobId, r.entityId);
    }
    for (const r of revs.filter((x) => x.before !== null && x.after !== null)) {
      const cur = (await tx.blocks.get(jobId, r.entityId))!;
      const b = r.before!;
      const orderIndex =
        b.structure.op === 'move' ? await slotAfter(tx, jobId, b.order_after, cur.block_id) : cur.order_index;
      const {
        job_id: _j,
        block_id: _b,
        version: _v,
        current_revision_id: _c,
        updated_at: _u,
        order_index: _o,
        ...fields
      } = recordOf(b.row);
      const { row } = await writeBlockVersion(
        tx,
        cur,
        { ...fields, order_index: orderIndex },
        undoRevision(r, cur.version + 1),
        { reviewer, now },
      );
      restored.push(row);
      const around = [(await predecessor(tx, row))?.block_id, (await successor(tx, row))?.block_id];
      changed.push(row.block_id, ...around.filter((x): x is string => !!x));
    }
    // Removed blocks come back in their old reading order, each after the block it followed.
    const removed = revs
      .filter((x) => x.after === null)
      .sort((a, b) => a.before!.row.orderIndex - b.before!.row.orderIndex);
    for (const r of removed) {
      const b = r.before!;
      const version = b.version + 1;
      const revisionId = await write(r.entityId, b.row.currentRevisionId, r, version);
      const orderIndex = await slotAfter(tx, jobId, b.order_after, null);
      const { job_id: _j, ...fields } = recordOf(b.row);
      const row = await tx.blocks.insert(jobId, {
        ...fields,
        order_index: orderIndex,
        version,
        current_revision_id: revisionId,
        updated_at: now,
      });
      restored.push(row);
      changed.push(row.block_id);
    }
  }
  if (groups.length) {
    await tx.blocks.compactOrder(jobId);
    const reread: BlockRecord[] = [];
    for (const r of restored) reread.push(await requireBlock(tx, jobId, r.block_id));
    return { handled, restored: reread, changed };
  }
  return { handled, restored, changed };
}

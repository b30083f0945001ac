import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { blocks, revisions } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView, type BlockView } from '../views.js';
import { sameState, stateFromSnapshot, stateOf, writeBlockState, type BlockRow, type BlockState } from './block-change.js';
import { markChunksStale, requireState } from './review-state.js';
import { undoStructure } from './block-structure.js';

/** A block named with the version the caller saw. */
export interface BlockRef {
  block_id: string;
  version: number;
}

/** Which blocks a bulk review covers when they are chosen by the server rather than listed. */
export interface BlockFilter {
  page?: number;
  status?: string;
  type?: string;
  flagged?: boolean;
  source?: string;
}

export interface BulkReview {
  status: 'approved' | 'rejected' | 'pending';
  reviewer_note?: string | null;
  items?: BlockRef[];
  filter?: BlockFilter;
}

export interface UndoItem extends BlockRef {
  /** The revision whose change is taken back: the block returns to that revision's `before`. */
  revision_id: string;
}

export interface BulkResult {
  job_id: string;
  /** Blocks changed, each at its new version (one revision each). */
  updated: number;
  /** Blocks that already were as asked: nothing written. */
  unchanged: number;
  stale_chunks: number;
  blocks: BlockView[];
}

interface Stale {
  block_id: string;
  version: number;
  current: BlockView;
}

function filterConditions(jobId: string, f: BlockFilter): SQL[] {
  const conds: SQL[] = [eq(blocks.jobId, jobId)];
  if (f.page !== undefined) conds.push(eq(blocks.page, f.page));
  if (f.status) conds.push(eq(blocks.status, f.status));
  if (f.type) conds.push(sql`COALESCE(${blocks.editedType}, ${blocks.type}) = ${f.type}`);
  if (f.flagged !== undefined) conds.push(eq(blocks.flagged, f.flagged));
  if (f.source) conds.push(eq(blocks.source, f.source));
  return conds;
}

/**
 * The listed blocks, in the order given. Unknown ids are a 404 naming them; any block whose version is
 * not the one given is a 409 listing every stale one with its current copy, so a client can refresh them
 * and send the rest again. Nothing is written in either case.
 */
export function listedBlocks(tx: DbLike, jobId: string, items: BlockRef[]): BlockRow[] {
  const rows = new Map<string, BlockRow>();
  // SQLite binds at most 32,766 variables: fetch in slices.
  for (let i = 0; i < items.length; i += 5000) {
    const ids = items.slice(i, i + 5000).map((r) => r.block_id);
    for (const row of tx.select().from(blocks).where(and(eq(blocks.jobId, jobId), inArray(blocks.blockId, ids))).all()) rows.set(row.blockId, row);
  }
  const missing = items.filter((r) => !rows.has(r.block_id)).map((r) => r.block_id);
  if (missing.length) throw new AppError('BLOCK_NOT_FOUND', `${missing.length} block(s) do not exist in job ${jobId}`, { missing });
  const stale: Stale[] = [];
  for (const r of items) {
    const row = rows.get(r.block_id)!;
    if (row.version !== r.version) stale.push({ block_id: r.block_id, version: r.version, current: blockView(row) });
  }
  if (stale.length) throw new AppError('VERSION_CONFLICT', `${stale.length} block(s) changed since they were read`, { stale });
  return items.map((r) => rows.get(r.block_id)!);
}

export function duplicateIds(items: BlockRef[]): string[] {
  const seen = new Set<string>();
  return items.filter((r) => (seen.has(r.block_id) ? true : (seen.add(r.block_id), false))).map((r) => r.block_id);
}

/**
 * Review actions over many blocks at once: each in one transaction with one revision per block changed,
 * so approving a 5,000-block document is one request instead of 5,000.
 */
export function createBlocksBulk({ db, clock }: { db: Db; clock: Clock }) {
  function run(jobId: string, what: string, body: (tx: DbLike, now: string) => { updated: BlockRow[]; unchanged: number; changedContent: string[] }): BulkResult {
    return db.transaction((tx) => {
      requireState(findJob(tx, jobId), ['ready_for_review'], what);
      const { updated, unchanged, changedContent } = body(tx, isoNow(clock));
      const staleChunks = markChunksStale(tx, jobId, changedContent);
      return { job_id: jobId, updated: updated.length, unchanged, stale_chunks: staleChunks, blocks: updated.map(blockView) };
    });
  }

  return {
    /** Sets the status (and optionally the note) of the listed blocks, or of every block matching a filter. */
    review(jobId: string, req: BulkReview, reviewer: string): BulkResult {
      if (!req.items === !req.filter) throw new AppError('VALIDATION_FAILED', 'send either items (blocks with their versions) or filter, not both');
      const dup = req.items ? duplicateIds(req.items) : [];
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'review blocks', (tx, now) => {
        const rows = req.items
          ? listedBlocks(tx, jobId, req.items)
          : tx.select().from(blocks).where(and(...filterConditions(jobId, req.filter!))).orderBy(asc(blocks.orderIndex)).all();
        const updated: BlockRow[] = [];
        const changedContent: string[] = [];
        let unchanged = 0;
        for (const cur of rows) {
          const next: BlockState = { ...stateOf(cur), status: req.status, ...(req.reviewer_note !== undefined ? { reviewerNote: req.reviewer_note } : {}) };
          // An edited block approved in bulk keeps its edit and its `edited` status: approving must not lose it.
          if (req.status === 'approved' && cur.status === 'edited') next.status = 'edited';
          if (sameState(stateOf(cur), next)) {
            unchanged += 1;
            continue;
          }
          const { row, contentChanged } = writeBlockState(tx, cur, next, { reviewer, now });
          updated.push(row);
          if (contentChanged) changedContent.push(cur.blockId);
        }
        return { updated, unchanged, changedContent };
      });
    },

    /**
     * Takes back the changes of the named revisions: each block returns exactly to the state its revision
     * started from (status, text, type, note), written as one `undo` revision that names the one undone.
     * A block changed since that revision (by anyone) is a 409 listing it: undoing over someone else's
     * change would lose it.
     */
    undo(jobId: string, all: UndoItem[], reviewer: string): BulkResult {
      const dup = duplicateIds(all);
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'undo review', (tx, now) => {
        // Split, merge and move are taken back as whole operations; the rest block by block below.
        const structural = undoStructure(tx, jobId, all.map((i) => i.revision_id), reviewer, now);
        const items = all.filter((i) => !structural.handled.has(i.revision_id));
        const rows = listedBlocks(tx, jobId, items);
        const revs = new Map(
          tx
            .select()
            .from(revisions)
            .where(and(eq(revisions.jobId, jobId), inArray(revisions.revisionId, items.length ? items.map((i) => i.revision_id) : [''])))
            .all()
            .map((r) => [r.revisionId, r]),
        );
        const stale: Stale[] = [];
        const plan = rows.map((cur, k) => {
          const item = items[k]!;
          const rev = revs.get(item.revision_id);
          const before = rev?.entityType === 'block' && rev.entityId === cur.blockId ? stateFromSnapshot(rev.before) : null;
          const after = rev ? stateFromSnapshot(rev.after) : null;
          if (!before || !after) {
            throw new AppError('VALIDATION_FAILED', `revision ${item.revision_id} is not a change of block ${cur.blockId}`, { block_id: cur.blockId, revision_id: item.revision_id });
          }
          if (!sameState(stateOf(cur), after)) stale.push({ block_id: cur.blockId, version: item.version, current: blockView(cur) });
          return { cur, before, revisionId: item.revision_id };
        });
        if (stale.length) throw new AppError('VERSION_CONFLICT', `${stale.length} block(s) changed after the revision being undone`, { stale });
        const updated: BlockRow[] = [];
        const changedContent: string[] = [];
        for (const { cur, before, revisionId } of plan) {
          const { row, contentChanged } = writeBlockState(tx, cur, before, { reviewer, now, action: 'undo', undoesRevisionId: revisionId });
          updated.push(row);
          if (contentChanged) changedContent.push(cur.blockId);
        }
        return { updated: [...structural.restored, ...updated], unchanged: 0, changedContent: [...structural.changed, ...changedContent] };
      });
    },
  };
}
export type BlocksBulk = ReturnType<typeof createBlocksBulk>;

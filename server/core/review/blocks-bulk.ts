import type { BlockFilter, BlockRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView, type BlockView } from '../views.js';
import { sameState, stateFromSnapshot, stateOf, writeBlockState, type BlockState } from './block-change.js';
import { requireState } from './review-state.js';
import { undoStructure } from './block-structure.js';

export type { BlockFilter };

/** A block named with the version the caller saw. */
export interface BlockRef {
  block_id: string;
  version: number;
}

export interface BulkReview {
  status: 'approved' | 'rejected' | 'pending';
  reviewer_note?: string | null;
  items?: BlockRef[];
  filter?: Omit<BlockFilter, 'not_status'>;
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

/**
 * The listed blocks, in the order given. Unknown ids are a 404 naming them; any block whose version is
 * not the one given is a 409 listing every stale one with its current copy, so a client can refresh them
 * and send the rest again. Nothing is written in either case.
 */
export async function listedBlocks(
  tx: Pick<Repositories, 'blocks'>,
  jobId: string,
  items: BlockRef[],
): Promise<BlockRecord[]> {
  const rows = new Map(
    (
      await tx.blocks.getMany(
        jobId,
        items.map((r) => r.block_id),
      )
    ).map((b) => [b.block_id, b]),
  );
  const missing = items.filter((r) => !rows.has(r.block_id)).map((r) => r.block_id);
  if (missing.length)
    throw new AppError('BLOCK_NOT_FOUND', `${missing.length} block(s) do not exist in job ${jobId}`, { missing });
  const stale: Stale[] = [];
  for (const r of items) {
    const row = rows.get(r.block_id)!;
    if (row.version !== r.version) stale.push({ block_id: r.block_id, version: r.version, current: blockView(row) });
  }
  if (stale.length)
    throw new AppError('VERSION_CONFLICT', `${stale.length} block(s) changed since they were read`, { stale });
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
export function createBlocksBulk({ store, clock }: { store: Store; clock: Clock }) {
  function run(
    jobId: string,
    what: string,
    body: (
      tx: Repositories,
      now: string,
    ) => Promise<{ updated: BlockRecord[]; unchanged: number; changedContent: string[] }>,
  ): Promise<BulkResult> {
    return store.transaction(async (tx) => {
      requireState(await findJob(tx, jobId), ['ready_for_review'], what);
      const { updated, unchanged, changedContent } = await body(tx, isoNow(clock));
      const staleChunks = await tx.chunks.markStale(jobId, changedContent);
      return {
        job_id: jobId,
        updated: updated.length,
        unchanged,
        stale_chunks: staleChunks,
        blocks: updated.map(blockView),
      };
    });
  }

  return {
    /** Sets the status (and optionally the note) of the listed blocks, or of every block matching a filter. */
    async review(jobId: string, req: BulkReview, reviewer: string): Promise<BulkResult> {
      if (!req.items === !req.filter)
        throw new AppError('VALIDATION_FAILED', 'send either items (blocks with their versions) or filter, not both');
      const dup = req.items ? duplicateIds(req.items) : [];
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'review blocks', async (tx, now) => {
        const rows = req.items ? await listedBlocks(tx, jobId, req.items) : await tx.blocks.find(jobId, req.filter!);
        const updated: BlockRecord[] = [];
        const changedContent: string[] = [];
        let unchanged = 0;
        for (const cur of rows) {
          const next: BlockState = {
            ...stateOf(cur),
            status: req.status,
            ...(req.reviewer_note !== undefined ? { reviewer_note: req.reviewer_note } : {}),
          };
          // An edited block approved in bulk keeps its edit and its `edited` status: approving must not lose it.
          if (req.status === 'approved' && cur.status === 'edited') next.status = 'edited';
          if (sameState(stateOf(cur), next)) {
            unchanged += 1;
            continue;
          }
          const { row, contentChanged } = await writeBlockState(tx, cur, next, { reviewer, now });
          updated.push(row);
          if (contentChanged) changedContent.push(cur.block_id);
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
    async undo(jobId: string, all: UndoItem[], reviewer: string): Promise<BulkResult> {
      const dup = duplicateIds(all);
      if (dup.length) throw new AppError('VALIDATION_FAILED', 'a block is listed twice', { duplicates: dup });
      return run(jobId, 'undo review', async (tx, now) => {
        // Split, merge and move are taken back as whole operations; the rest block by block below.
        const structural = await undoStructure(
          tx,
          jobId,
          all.map((i) => i.revision_id),
          reviewer,
          now,
        );
        const items = all.filter((i) => !structural.handled.has(i.revision_id));
        const rows = await listedBlocks(tx, jobId, items);
        const revs = new Map(
          (
            await tx.revisions.getMany(
              jobId,
              items.map((i) => i.revision_id),
            )
          ).map((r) => [r.revision_id, r]),
        );
        const stale: Stale[] = [];
        const plan = rows.map((cur, k) => {
          const item = items[k]!;
          const rev = revs.get(item.revision_id);
          const before =
            rev?.entity_type === 'block' && rev.entity_id === cur.block_id ? stateFromSnapshot(rev.before) : null;
          const after = rev ? stateFromSnapshot(rev.after) : null;
          if (!before || !after) {
            throw new AppError(
              'VALIDATION_FAILED',
              `revision ${item.revision_id} is not a change of block ${cur.block_id}`,
              { block_id: cur.block_id, revision_id: item.revision_id },
            );
          }
          if (!sameState(stateOf(cur), after))
            stale.push({ block_id: cur.block_id, version: item.version, current: blockView(cur) });
          return { cur, before, revisionId: item.revision_id };
        });
        if (stale.length)
          throw new AppError('VERSION_CONFLICT', `${stale.length} block(s) changed after the revision being undone`, {
            stale,
          });
        const updated: BlockRecord[] = [];
        const changedContent: string[] = [];
        for (const { cur, before, revisionId } of plan) {
          const { row, contentChanged } = await writeBlockState(tx, cur, before, {
            reviewer,
            now,
            action: 'undo',
            undoesRevisionId: revisionId,
          });
          updated.push(row);
          if (contentChanged) changedContent.push(cur.block_id);
        }
        return {
          updated: [...structural.restored, ...updated],
          unchanged: 0,
          changedContent: [...structural.changed, ...changedContent],
        };
      });
    },
  };
}
export type BlocksBulk = ReturnType<typeof createBlocksBulk>;

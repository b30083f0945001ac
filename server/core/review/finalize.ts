import { and, eq } from 'drizzle-orm';
import { blocks, chunks, jobs } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import type { Rechunk } from './rechunk.js';
import { markChunksStale, requireState, reviewCounts } from './review-state.js';

/** Every spelling found in LongParser's code and docs, mapped to what it does. */
export const FINALIZE_POLICIES = {
  require_all_approved: 'require',
  auto_approve_pending: 'approve',
  approve_pending: 'approve',
  approve_all_pending: 'approve',
  auto_reject_pending: 'reject',
  reject_pending: 'reject',
} as const;
export type FinalizePolicy = keyof typeof FINALIZE_POLICIES;
export const DEFAULT_FINALIZE_POLICY: FinalizePolicy = 'auto_reject_pending';

type Resolution = 'approved' | 'rejected';

/**
 * Moves every pending block or chunk to the policy's status (or, for a chunk, to what `decide` says),
 * one audit revision each. Returns the ids moved to rejected.
 */
function settlePending(
  tx: DbLike,
  jobId: string,
  entity: 'block' | 'chunk',
  decide: (row: object) => Resolution,
  reviewer: string,
  now: string,
): string[] {
  const table = entity === 'block' ? blocks : chunks;
  const rows = tx.select().from(table).where(and(eq(table.jobId, jobId), eq(table.status, 'pending'))).all();
  const rejected: string[] = [];
  for (const r of rows) {
    const id = 'blockId' in r ? r.blockId : r.chunkId;
    const to = decide(r);
    const revisionId = writeRevision(tx, {
      jobId,
      entityType: entity,
      entityId: id,
      previousRevisionId: r.currentRevisionId,
      action: to === 'approved' ? 'auto_approved' : 'auto_rejected',
      before: { status: 'pending', version: r.version },
      after: { status: to, version: r.version + 1 },
      originalText: r.text,
      reviewerId: reviewer,
      timestamp: now,
    });
    const idCol = entity === 'block' ? blocks.blockId : chunks.chunkId;
    tx.update(table).set({ status: to, version: r.version + 1, currentRevisionId: revisionId, updatedAt: now }).where(and(eq(table.jobId, jobId), eq(idCol, id))).run();
    if (to === 'rejected') rejected.push(id);
  }
  return rejected;
}

/**
 * Under a reject policy a pending chunk follows its blocks: blocks are the unit people review, so a chunk
 * made only of approved or edited blocks is approved rather than thrown away. An explicit chunk review
 * always stands.
 */
function chunkFollowsBlocks(tx: DbLike, jobId: string): (row: object) => Resolution {
  const accepted = new Set(
    tx.select({ id: blocks.blockId, status: blocks.status }).from(blocks).where(eq(blocks.jobId, jobId)).all()
      .filter((b) => b.status === 'approved' || b.status === 'edited')
      .map((b) => b.id),
  );
  return (row) => (('blockIds' in row ? (row.blockIds as string[]) : []).every((id) => accepted.has(id)) ? 'approved' : 'rejected');
}

/**
 * Closes review. Pending blocks are settled by the policy first; chunks made stale by that (or by earlier
 * block edits) are rebuilt, then pending chunks are settled the same way. `require_all_approved` settles
 * nothing and refuses with 409 while anything is pending or stale.
 */
export function createFinalize({ db, clock, rechunk }: { db: Db; clock: Clock; rechunk: Rechunk }) {
  return async function finalize(jobId: string, policyName: string | undefined, reviewer: string) {
    const policy = (policyName ?? DEFAULT_FINALIZE_POLICY) as FinalizePolicy;
    const mode = FINALIZE_POLICIES[policy];
    if (!mode) {
      throw new AppError('INVALID_POLICY', `unknown finalize_policy "${policyName}"`, { allowed: Object.keys(FINALIZE_POLICIES) });
    }
    const resolution: Resolution = mode === 'approve' ? 'approved' : 'rejected';
    const staleAfterBlocks = db.transaction((tx) => {
      requireState(findJob(tx, jobId), ['ready_for_review'], 'finalize');
      const counts = reviewCounts(tx, jobId);
      if (mode === 'require') {
        if (counts.blocks.pending + counts.chunks.pending + counts.chunks.stale > 0) {
          throw new AppError('PENDING_ITEMS', 'every block and chunk must be reviewed before finalizing with require_all_approved', {
            pending_blocks: counts.blocks.pending,
            pending_chunks: counts.chunks.pending,
            stale_chunks: counts.chunks.stale,
          });
        }
      } else {
        const rejected = settlePending(tx, jobId, 'block', () => resolution, reviewer, isoNow(clock));
        markChunksStale(tx, jobId, rejected);
      }
      tx.update(jobs).set({ status: 'finalizing', updatedAt: isoNow(clock) }).where(eq(jobs.jobId, jobId)).run();
      return reviewCounts(tx, jobId).chunks.stale;
    });
    try {
      if (staleAfterBlocks > 0) await rechunk(jobId, reviewer, ['finalizing']);
      return db.transaction((tx) => {
        const now = isoNow(clock);
        if (mode !== 'require') {
          settlePending(tx, jobId, 'chunk', resolution === 'approved' ? () => 'approved' : chunkFollowsBlocks(tx, jobId), reviewer, now);
        }
        tx.update(jobs).set({ status: 'finalized', finalizePolicy: policy, finalizedAt: now, updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
        const counts = reviewCounts(tx, jobId);
        writeRevision(tx, {
          jobId,
          entityType: 'job',
          entityId: jobId,
          previousRevisionId: null,
          action: 'finalize',
          before: { status: 'ready_for_review' },
          after: { status: 'finalized', finalize_policy: policy, ...counts },
          reviewerId: reviewer,
          timestamp: now,
        });
        return { job_id: jobId, status: 'finalized' as const, finalize_policy: policy, finalized_at: now, counts };
      });
    } catch (err) {
      db.update(jobs).set({ status: 'ready_for_review' }).where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'finalizing'))).run();
      throw err;
    }
  };
}

import type { ChunkView } from '../../store/repos/jobs-repo.js';
import type { NewRevision } from '../../store/repos/revisions-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import type { Rechunk } from './rechunk.js';
import { requireState } from './review-state.js';

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

/** The audit revision of a pending item settled by finalize. */
function settled(
  entity: 'block' | 'chunk',
  item: { id: string; revision: string | null; version: number; text: string },
  to: Resolution,
  o: { jobId: string; reviewer: string; now: string },
): NewRevision {
  return {
    job_id: o.jobId,
    entity_type: entity,
    entity_id: item.id,
    previous_revision_id: item.revision,
    action: to === 'approved' ? 'auto_approved' : 'auto_rejected',
    before: { status: 'pending', version: item.version },
    after: { status: to, version: item.version + 1 },
    original_text: item.text,
    reviewer_id: o.reviewer,
    timestamp: o.now,
  };
}

/** Moves every pending block to `to`, one audit revision each. Returns the ids moved to rejected. */
async function settleBlocks(
  tx: Repositories,
  to: Resolution,
  o: { jobId: string; reviewer: string; now: string },
): Promise<string[]> {
  const rejected: string[] = [];
  for (const b of await tx.blocks.find(o.jobId, { status: 'pending' })) {
    const revisionId = await tx.revisions.insert(
      settled('block', { id: b.block_id, revision: b.current_revision_id, version: b.version, text: b.text }, to, o),
    );
    await tx.blocks.update(o.jobId, b.block_id, {
      status: to,
      version: b.version + 1,
      current_revision_id: revisionId,
      updated_at: o.now,
    });
    if (to === 'rejected') rejected.push(b.block_id);
  }
  return rejected;
}

/** Moves every pending chunk to what `decide` says, one audit revision each. */
async function settleChunks(
  tx: Repositories,
  decide: (c: ChunkView) => Resolution,
  o: { jobId: string; reviewer: string; now: string },
): Promise<void> {
  for (const c of await tx.chunks.find(o.jobId, { status: 'pending' })) {
    const to = decide(c);
    const revisionId = await tx.revisions.insert(
      settled(
        'chunk',
        { id: c.chunk_id, revision: c.current_revision_id, version: c.version, text: c.original_text },
        to,
        o,
      ),
    );
    await tx.chunks.update(o.jobId, c.chunk_id, {
      status: to,
      version: c.version + 1,
      current_revision_id: revisionId,
      updated_at: o.now,
    });
  }
}

/**
 * Under a reject policy a pending chunk follows its blocks: blocks are the unit people review, so a chunk
 * made only of approved or edited blocks is approved rather than thrown away. An explicit chunk review
 * always stands.
 */
async function chunkFollowsBlocks(tx: Repositories, jobId: string): Promise<(c: ChunkView) => Resolution> {
  const accepted = new Set(
    (await tx.blocks.find(jobId))
      .filter((b) => b.status === 'approved' || b.status === 'edited')
      .map((b) => b.block_id),
  );
  return (c) => (c.block_ids.every((id) => accepted.has(id)) ? 'approved' : 'rejected');
}

/**
 * Closes review. Pending blocks are settled by the policy first; chunks made stale by that (or by earlier
 * block edits) are rebuilt, then pending chunks are settled the same way. `require_all_approved` settles
 * nothing and refuses with 409 while anything is pending or stale.
 */
export function createFinalize({ store, clock, rechunk }: { store: Store; clock: Clock; rechunk: Rechunk }) {
  return async function finalize(jobId: string, policyName: string | undefined, reviewer: string) {
    const policy = (policyName ?? DEFAULT_FINALIZE_POLICY) as FinalizePolicy;
    const mode = FINALIZE_POLICIES[policy];
    if (!mode) {
      throw new AppError('INVALID_POLICY', `unknown finalize_policy "${policyName}"`, {
        allowed: Object.keys(FINALIZE_POLICIES),
      });
    }
    const resolution: Resolution = mode === 'approve' ? 'approved' : 'rejected';
    const staleAfterBlocks = await store.transaction(async (tx) => {
      requireState(await findJob(tx, jobId), ['ready_for_review'], 'finalize');
      const counts = await tx.jobs.reviewCounts(jobId);
      if (mode === 'require') {
        if (counts.blocks.pending + counts.chunks.pending + counts.chunks.stale > 0) {
          throw new AppError(
            'PENDING_ITEMS',
            'every block and chunk must be reviewed before finalizing with require_all_approved',
            {
              pending_blocks: counts.blocks.pending,
              pending_chunks: counts.chunks.pending,
              stale_chunks: counts.chunks.stale,
            },
          );
        }
      } else {
        const rejected = await settleBlocks(tx, resolution, { jobId, reviewer, now: isoNow(clock) });
        await tx.chunks.markStale(jobId, rejected);
      }
      // Only from ready_for_review: a finalize of the same job on another node of a team server that got
      // here first holds the row; this one then finds it moved on and rolls back everything above.
      if (!(await tx.jobs.update(jobId, { status: 'finalizing', updated_at: isoNow(clock) }, ['ready_for_review']))) {
        requireState(await findJob(tx, jobId), [], 'finalize');
      }
      return (await tx.jobs.reviewCounts(jobId)).chunks.stale;
    });
    try {
      if (staleAfterBlocks > 0) await rechunk(jobId, reviewer, ['finalizing']);
      return await store.transaction(async (tx) => {
        const now = isoNow(clock);
        if (mode !== 'require') {
          await settleChunks(tx, resolution === 'approved' ? () => 'approved' : await chunkFollowsBlocks(tx, jobId), {
            jobId,
            reviewer,
            now,
          });
        }
        await tx.jobs.update(jobId, {
          status: 'finalized',
          finalize_policy: policy,
          finalized_at: now,
          updated_at: now,
        });
        const counts = await tx.jobs.reviewCounts(jobId);
        await tx.revisions.insert({
          job_id: jobId,
          entity_type: 'job',
          entity_id: jobId,
          previous_revision_id: null,
          action: 'finalize',
          before: { status: 'ready_for_review' },
          after: { status: 'finalized', finalize_policy: policy, ...counts },
          reviewer_id: reviewer,
          timestamp: now,
        });
        return { job_id: jobId, status: 'finalized' as const, finalize_policy: policy, finalized_at: now, counts };
      });
    } catch (err) {
      await store.jobs.update(jobId, { status: 'ready_for_review' }, ['finalizing']);
      throw err;
    }
  };
}

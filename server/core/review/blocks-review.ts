import type { BlockListQuery } from '../../store/repos/jobs-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView } from '../views.js';
import { patchedState, writeBlockState, type BlockChange } from './block-change.js';
import { requireState } from './review-state.js';

export type BlockQuery = BlockListQuery;

export interface BlockPatch extends BlockChange {
  version: number;
}

export function createBlocksReview({ store, clock }: { store: Store; clock: Clock }) {
  return {
    async list(jobId: string, q: BlockQuery) {
      await findJob(store, jobId);
      const page = await store.blocks.list(jobId, q);
      return { ...page, items: page.items.map(blockView) };
    },

    async get(jobId: string, blockId: string) {
      await findJob(store, jobId);
      const b = await store.blocks.get(jobId, blockId);
      if (!b) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
      return blockView(b);
    },

    patch(jobId: string, blockId: string, patch: BlockPatch, reviewer: string) {
      return store.transaction(async (tx) => {
        const j = await findJob(tx, jobId);
        const cur = await tx.blocks.get(jobId, blockId);
        if (!cur) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
        requireState(j, ['ready_for_review'], 'review blocks');
        if (patch.version !== cur.version) {
          throw new AppError(
            'VERSION_CONFLICT',
            `block ${blockId} is at version ${cur.version}, not ${patch.version}`,
            { current: blockView(cur) },
          );
        }
        const { version: _version, ...change } = patch;
        if (
          change.status === undefined &&
          change.edited_text === undefined &&
          change.edited_type === undefined &&
          change.reviewer_note === undefined
        ) {
          throw new AppError(
            'VALIDATION_FAILED',
            'nothing to change: send status, edited_text, edited_type or reviewer_note',
          );
        }
        const { row, contentChanged } = await writeBlockState(tx, cur, patchedState(cur, change), {
          reviewer,
          now: isoNow(clock),
        });
        const staleChunks = contentChanged ? await tx.chunks.markStale(jobId, [blockId]) : 0;
        return { ...blockView(row), stale_chunks: staleChunks };
      });
    },
  };
}
export type BlocksReview = ReturnType<typeof createBlocksReview>;

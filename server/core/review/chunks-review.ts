import type { Paging } from '../../store/repos/paging.js';
import type { ChunkFilter, ChunkView } from '../../store/repos/jobs-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { reviewedText } from './block-change.js';
import { reviewAction } from '../audit/actions.js';
import { nextStatus, requireState } from './review-state.js';

export type ChunkQuery = Omit<ChunkFilter, 'block_id'> & Paging;

export interface ChunkPatch {
  version: number;
  status?: string;
  edited_text?: string | null;
  reviewer_note?: string | null;
  allow_empty?: boolean;
}

const snapshot = (c: ChunkView) => ({
  status: c.status,
  edited_text: c.edited_text,
  reviewer_note: c.reviewer_note,
  version: c.version,
});

export function createChunksReview({ store, clock }: { store: Store; clock: Clock }) {
  return {
    async list(jobId: string, q: ChunkQuery) {
      await findJob(store, jobId);
      return store.chunks.list(jobId, q);
    },

    patch(jobId: string, chunkId: string, patch: ChunkPatch, reviewer: string) {
      return store.transaction(async (tx) => {
        const j = await findJob(tx, jobId);
        const cur = await tx.chunks.get(jobId, chunkId);
        if (!cur) throw new AppError('CHUNK_NOT_FOUND', `chunk ${chunkId} does not exist in job ${jobId}`);
        // A chunk can still be corrected after finalize (a typo found through search, say); blocks cannot.
        // An indexed job keeps its index until embedded again, which re-embeds only the changed chunks.
        requireState(j, ['ready_for_review', 'finalized', 'indexed'], 'review chunks');
        if (patch.version !== cur.version) {
          throw new AppError(
            'VERSION_CONFLICT',
            `chunk ${chunkId} is at version ${cur.version}, not ${patch.version}`,
            { current: cur },
          );
        }
        const edited = patch.edited_text !== undefined;
        if (!edited && patch.status === undefined && patch.reviewer_note === undefined) {
          throw new AppError('VALIDATION_FAILED', 'nothing to change: send status, edited_text or reviewer_note');
        }
        const editedText = edited
          ? reviewedText(patch.edited_text ?? null, cur.original_text, patch.allow_empty)
          : cur.edited_text;
        const status = nextStatus(cur.status, patch.status, edited, editedText !== null);
        if (status === 'edited' && editedText === null)
          throw new AppError('VALIDATION_FAILED', 'status "edited" needs edited_text');
        const reviewerNote = patch.reviewer_note !== undefined ? patch.reviewer_note : cur.reviewer_note;
        const now = isoNow(clock);
        const revisionId = await tx.revisions.insert({
          job_id: jobId,
          entity_type: 'chunk',
          entity_id: chunkId,
          previous_revision_id: cur.current_revision_id,
          action: reviewAction(status),
          before: snapshot(cur),
          after: { status, edited_text: editedText, reviewer_note: reviewerNote, version: cur.version + 1 },
          original_text: cur.original_text,
          edited_text: editedText,
          reviewer_id: reviewer,
          reviewer_note: reviewerNote,
          timestamp: now,
        });
        const updated = await tx.chunks.update(
          jobId,
          chunkId,
          {
            status: status as ChunkView['status'],
            edited_text: editedText,
            reviewer_note: reviewerNote,
            version: cur.version + 1,
            current_revision_id: revisionId,
            updated_at: now,
          },
          cur.version,
        );
        if (!updated) throw new AppError('VERSION_CONFLICT', `chunk ${chunkId} changed meanwhile`);
        return updated;
      });
    },
  };
}
export type ChunksReview = ReturnType<typeof createChunksReview>;

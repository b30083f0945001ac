import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { chunks } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { chunkView } from '../views.js';
import { reviewedText } from './block-change.js';
import { reviewAction } from '../audit/actions.js';
import { nextStatus, requireState } from './review-state.js';
import { paginate } from '../../store/paginate.js';

export interface ChunkQuery {
  status?: string;
  chunk_type?: string;
  page?: number;
  stale?: boolean;
  skip: number;
  limit: number;
}

export interface ChunkPatch {
  version: number;
  status?: string;
  edited_text?: string | null;
  reviewer_note?: string | null;
  allow_empty?: boolean;
}

type ChunkRow = typeof chunks.$inferSelect;
const snapshot = (c: ChunkRow) => ({ status: c.status, edited_text: c.editedText, reviewer_note: c.reviewerNote, version: c.version });

export function createChunksReview({ db, clock }: { db: Db; clock: Clock }) {
  return {
    list(jobId: string, q: ChunkQuery) {
      findJob(db, jobId);
      const conds: SQL[] = [eq(chunks.jobId, jobId)];
      if (q.status) conds.push(eq(chunks.status, q.status));
      if (q.chunk_type) conds.push(eq(chunks.chunkType, q.chunk_type));
      if (q.stale !== undefined) conds.push(eq(chunks.stale, q.stale));
      if (q.page !== undefined) conds.push(sql`EXISTS (SELECT 1 FROM json_each(${chunks.pageNumbers}) WHERE value = ${q.page})`);
      const where = and(...conds);
      return paginate(db, chunks, where, [asc(chunks.orderIndex)], q, chunkView);
    },

    patch(jobId: string, chunkId: string, patch: ChunkPatch, reviewer: string) {
      return db.transaction((tx) => {
        const j = findJob(db, jobId);
        const cur = tx.select().from(chunks).where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, chunkId))).get();
        if (!cur) throw new AppError('CHUNK_NOT_FOUND', `chunk ${chunkId} does not exist in job ${jobId}`);
        // A chunk can still be corrected after finalize (a typo found through search, say); blocks cannot.
        // An indexed job keeps its index until embedded again, which re-embeds only the changed chunks.
        requireState(j, ['ready_for_review', 'finalized', 'indexed'], 'review chunks');
        if (patch.version !== cur.version) {
          throw new AppError('VERSION_CONFLICT', `chunk ${chunkId} is at version ${cur.version}, not ${patch.version}`, { current: chunkView(cur) });
        }
        const edited = patch.edited_text !== undefined;
        if (!edited && patch.status === undefined && patch.reviewer_note === undefined) {
          throw new AppError('VALIDATION_FAILED', 'nothing to change: send status, edited_text or reviewer_note');
        }
        const editedText = edited ? reviewedText(patch.edited_text ?? null, cur.text, patch.allow_empty) : cur.editedText;
        const status = nextStatus(cur.status, patch.status, edited, editedText !== null);
        if (status === 'edited' && editedText === null) throw new AppError('VALIDATION_FAILED', 'status "edited" needs edited_text');
        const reviewerNote = patch.reviewer_note !== undefined ? patch.reviewer_note : cur.reviewerNote;
        const now = isoNow(clock);
        const revisionId = writeRevision(tx, {
          jobId,
          entityType: 'chunk',
          entityId: chunkId,
          previousRevisionId: cur.currentRevisionId,
          action: reviewAction(status),
          before: snapshot(cur),
          after: { status, edited_text: editedText, reviewer_note: reviewerNote, version: cur.version + 1 },
          originalText: cur.text,
          editedText,
          reviewerId: reviewer,
          reviewerNote,
          timestamp: now,
        });
        const updated = tx
          .update(chunks)
          .set({ status, editedText, reviewerNote, version: cur.version + 1, currentRevisionId: revisionId, updatedAt: now })
          .where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, chunkId), eq(chunks.version, cur.version)))
          .returning()
          .get();
        if (!updated) throw new AppError('VERSION_CONFLICT', `chunk ${chunkId} changed meanwhile`);
        return chunkView(updated);
      });
    },
  };
}
export type ChunksReview = ReturnType<typeof createChunksReview>;

import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { blocks } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView } from '../views.js';
import { markChunksStale, nextStatus, requireState, reviewAction } from './review-state.js';
import { paginate } from '../../store/paginate.js';

export interface BlockQuery {
  status?: string;
  flagged?: boolean;
  source?: string;
  /** 'confidence': lowest OCR confidence first, blocks without one after them in reading order. */
  sort?: 'order' | 'confidence';
  type?: string;
  page?: number;
  skip: number;
  limit: number;
}

export interface BlockPatch {
  version: number;
  status?: string;
  edited_text?: string | null;
  edited_type?: string | null;
  reviewer_note?: string | null;
}

type BlockRow = typeof blocks.$inferSelect;
const snapshot = (b: BlockRow) => ({
  status: b.status,
  edited_text: b.editedText,
  edited_type: b.editedType,
  reviewer_note: b.reviewerNote,
  version: b.version,
});
/** What a block contributes to chunks: its effective text and type, or nothing when rejected. */
const contribution = (b: Pick<BlockRow, 'status' | 'text' | 'type' | 'editedText' | 'editedType'>) =>
  b.status === 'rejected' ? null : `${b.editedType ?? b.type}\u0000${b.editedText ?? b.text}`;

export function createBlocksReview({ db, clock }: { db: Db; clock: Clock }) {
  return {
    list(jobId: string, q: BlockQuery) {
      findJob(db, jobId);
      const conds: SQL[] = [eq(blocks.jobId, jobId)];
      if (q.status) conds.push(eq(blocks.status, q.status));
      // Filter on the effective type, so a block retyped by a reviewer is found under its new type.
      if (q.type) conds.push(sql`COALESCE(${blocks.editedType}, ${blocks.type}) = ${q.type}`);
      if (q.page !== undefined) conds.push(eq(blocks.page, q.page));
      if (q.flagged !== undefined) conds.push(eq(blocks.flagged, q.flagged));
      if (q.source) conds.push(eq(blocks.source, q.source));
      const where = and(...conds);
      const order =
        q.sort === 'confidence'
          ? [sql`${blocks.confidence} IS NULL`, asc(blocks.confidence), asc(blocks.orderIndex)]
          : [asc(blocks.orderIndex)];
      return paginate(db, blocks, where, order, q, blockView);
    },

    get(jobId: string, blockId: string) {
      findJob(db, jobId);
      const b = db.select().from(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId))).get();
      if (!b) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
      return blockView(b);
    },

    patch(jobId: string, blockId: string, patch: BlockPatch, reviewer: string) {
      return db.transaction((tx) => {
        const j = findJob(db, jobId);
        const cur = tx.select().from(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId))).get();
        if (!cur) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
        requireState(j, ['ready_for_review'], 'review blocks');
        if (patch.version !== cur.version) {
          throw new AppError('VERSION_CONFLICT', `block ${blockId} is at version ${cur.version}, not ${patch.version}`, { current: blockView(cur) });
        }
        const edited = patch.edited_text !== undefined || patch.edited_type !== undefined;
        if (!edited && patch.status === undefined && patch.reviewer_note === undefined) {
          throw new AppError('VALIDATION_FAILED', 'nothing to change: send status, edited_text, edited_type or reviewer_note');
        }
        const editedText = patch.edited_text !== undefined ? patch.edited_text : cur.editedText;
        const editedType = patch.edited_type !== undefined ? patch.edited_type : cur.editedType;
        const status = nextStatus(cur.status, patch.status, edited, editedText !== null || editedType !== null);
        if (status === 'edited' && editedText === null && editedType === null) {
          throw new AppError('VALIDATION_FAILED', 'status "edited" needs edited_text or edited_type');
        }
        const next = { ...cur, status, editedText, editedType, reviewerNote: patch.reviewer_note !== undefined ? patch.reviewer_note : cur.reviewerNote };
        const contentChanged = contribution(cur) !== contribution(next);
        const now = isoNow(clock);
        const revisionId = writeRevision(tx, {
          jobId,
          entityType: 'block',
          entityId: blockId,
          previousRevisionId: cur.currentRevisionId,
          action: reviewAction(cur.status, status, cur.editedText !== editedText || cur.editedType !== editedType),
          before: snapshot(cur),
          after: snapshot({ ...next, version: cur.version + 1 }),
          originalText: cur.text,
          editedText,
          editedType,
          reviewerId: reviewer,
          reviewerNote: next.reviewerNote,
          timestamp: now,
        });
        const updated = tx
          .update(blocks)
          .set({ status, editedText, editedType, reviewerNote: next.reviewerNote, version: cur.version + 1, currentRevisionId: revisionId, updatedAt: now })
          .where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId), eq(blocks.version, cur.version)))
          .returning()
          .get();
        if (!updated) throw new AppError('VERSION_CONFLICT', `block ${blockId} changed meanwhile`);
        const staleChunks = contentChanged ? markChunksStale(tx, jobId, [blockId]) : 0;
        return { ...blockView(updated), stale_chunks: staleChunks };
      });
    },
  };
}
export type BlocksReview = ReturnType<typeof createBlocksReview>;

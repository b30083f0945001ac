import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { blocks } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { blockView } from '../views.js';
import { patchedState, writeBlockState, type BlockChange } from './block-change.js';
import { markChunksStale, requireState } from './review-state.js';
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

export interface BlockPatch extends BlockChange {
  version: number;
}

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
        const { version: _version, ...change } = patch;
        if (change.status === undefined && change.edited_text === undefined && change.edited_type === undefined && change.reviewer_note === undefined) {
          throw new AppError('VALIDATION_FAILED', 'nothing to change: send status, edited_text, edited_type or reviewer_note');
        }
        const { row, contentChanged } = writeBlockState(tx, cur, patchedState(cur, change), { reviewer, now: isoNow(clock) });
        const staleChunks = contentChanged ? markChunksStale(tx, jobId, [blockId]) : 0;
        return { ...blockView(row), stale_chunks: staleChunks };
      });
    },
  };
}
export type BlocksReview = ReturnType<typeof createBlocksReview>;

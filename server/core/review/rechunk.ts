import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { blocks, chunks, jobs } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import type { ChunkInputBlock } from '../chunking/types.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { BlockType } from '../extract/types.js';
import { findJob } from '../jobs/find-job.js';
import { insertChunks } from '../jobs/save-extraction.js';
import type { TaskPool } from '../pool.js';
import { requireState } from './review-state.js';

export interface RechunkResult {
  job_id: string;
  total_chunks: number;
  kept: number;
  added: number;
  removed: number;
}

/** Changes to the blocks while the worker chunks show up here, so the write can tell it raced an edit. */
// Count and order too: a merge removes a block while bumping another's version, a move changes only order.
const blocksFingerprint = (db: DbLike, jobId: string) =>
  db.select({ v: sql<string>`COALESCE(SUM(${blocks.version}), 0) || ':' || COUNT(*) || ':' || COALESCE(SUM(${blocks.orderIndex} * ${blocks.version}), 0)` }).from(blocks).where(eq(blocks.jobId, jobId)).get()?.v ?? '';

/**
 * Rebuilds a job's chunks from its reviewed blocks (edited text and type applied, rejected blocks left
 * out). A chunk whose id survives (same content in the same section) keeps its review state; chunks
 * that no longer exist are removed, new ones arrive pending.
 */
export function createRechunk({ db, pool, clock }: { db: Db; pool: TaskPool; clock: Clock }) {
  return async function rechunk(jobId: string, reviewer: string, allowedStates: readonly string[] = ['ready_for_review']): Promise<RechunkResult> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const job = findJob(db, jobId);
      requireState(job, allowedStates, 'rechunk');
      const fingerprint = blocksFingerprint(db, jobId);
      const input: ChunkInputBlock[] = db
        .select()
        .from(blocks)
        .where(and(eq(blocks.jobId, jobId), ne(blocks.status, 'rejected')))
        .orderBy(asc(blocks.orderIndex))
        .all()
        .map((b) => ({
          block_id: b.blockId,
          type: (b.editedType ?? b.type) as BlockType,
          text: b.editedText ?? b.text,
          page: b.page,
          heading_level: b.headingLevel,
        }));
      const drafts = await pool.chunk({
        blocks: input,
        options: { target_tokens: job.options.chunk_size, overlap_tokens: job.options.chunk_overlap, id_seed: jobId },
      });
      const result = db.transaction((tx) => {
        requireState(findJob(tx, jobId), allowedStates, 'rechunk');
        if (blocksFingerprint(tx, jobId) !== fingerprint) return null;
        const existing = new Set(tx.select({ id: chunks.chunkId }).from(chunks).where(eq(chunks.jobId, jobId)).all().map((r) => r.id));
        const order = new Map(drafts.map((d, i) => [d.chunk_id, i]));
        const fresh = drafts.filter((d) => !existing.has(d.chunk_id));
        const removedIds = [...existing].filter((id) => !order.has(id));
        for (const [id, i] of order) {
          if (existing.has(id)) tx.update(chunks).set({ orderIndex: i, stale: false }).where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, id))).run();
        }
        for (let i = 0; i < removedIds.length; i += 400) {
          tx.delete(chunks).where(and(eq(chunks.jobId, jobId), inArray(chunks.chunkId, removedIds.slice(i, i + 400)))).run();
        }
        insertChunks(tx, jobId, fresh, (d) => order.get(d.chunk_id) ?? 0);
        const summary = { job_id: jobId, total_chunks: drafts.length, kept: drafts.length - fresh.length, added: fresh.length, removed: removedIds.length };
        const now = isoNow(clock);
        tx.update(jobs).set({ totalChunks: drafts.length, updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
        writeRevision(tx, {
          jobId,
          entityType: 'job',
          entityId: jobId,
          previousRevisionId: null,
          action: 'rechunk',
          before: null,
          after: summary,
          reviewerId: reviewer,
          timestamp: now,
        });
        return summary;
      });
      if (result) return result;
    }
    throw new AppError('VERSION_CONFLICT', 'blocks kept changing while re-chunking; try again');
  };
}
export type Rechunk = ReturnType<typeof createRechunk>;

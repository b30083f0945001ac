import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { blocks, chunks } from '../../../drizzle/schema.js';
import type { DbLike } from '../../store/db.js';
import { AppError } from '../errors.js';

export const REVIEW_STATUSES = ['pending', 'approved', 'edited', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Review happens only while a job is ready_for_review; any other state is a 409. */
export function requireState(job: { jobId: string; status: string }, allowed: readonly string[], what: string): void {
  if (!allowed.includes(job.status)) {
    throw new AppError('INVALID_STATE', `cannot ${what} while the job is ${job.status}`, { status: job.status, allowed_states: allowed });
  }
}

/** How an edit request moves a review status when the caller does not name one. */
export function nextStatus(current: string, requested: string | undefined, edited: boolean, hasEdits: boolean): string {
  if (requested) return requested;
  if (edited) return hasEdits ? 'edited' : 'pending';
  return current;
}

/** Chunks built from any of these blocks are stale once a block's text, type or rejection changed. */
export function markChunksStale(db: DbLike, jobId: string, blockIds: string[]): number {
  if (!blockIds.length) return 0;
  // One statement for any number of blocks: a bulk rejection of thousands must not scan chunks per block.
  return db
    .update(chunks)
    .set({ stale: true })
    .where(
      and(
        eq(chunks.jobId, jobId),
        sql`EXISTS (SELECT 1 FROM json_each(${chunks.blockIds}) WHERE value IN (SELECT value FROM json_each(${JSON.stringify(blockIds)})))`,
      ),
    )
    .run().changes;
}

export type ReviewTally = Record<ReviewStatus, number>;

function tally(rows: { status: string; n: number }[]): ReviewTally {
  const out: ReviewTally = { pending: 0, approved: 0, edited: 0, rejected: 0 };
  for (const r of rows) if (r.status in out) out[r.status as ReviewStatus] = r.n;
  return out;
}

/** Each job's blocks by review state (LongParser's `review_progress`), in one query for a page of jobs. */
export function blockTallies(db: DbLike, jobIds: string[]): Map<string, ReviewTally> {
  const rows = jobIds.length
    ? db.select({ jobId: blocks.jobId, status: blocks.status, n: count() }).from(blocks).where(inArray(blocks.jobId, jobIds)).groupBy(blocks.jobId, blocks.status).all()
    : [];
  return new Map(jobIds.map((id) => [id, tally(rows.filter((r) => r.jobId === id))]));
}

export function reviewCounts(db: DbLike, jobId: string) {
  const b = db.select({ status: blocks.status, n: count() }).from(blocks).where(eq(blocks.jobId, jobId)).groupBy(blocks.status).all();
  const c = db.select({ status: chunks.status, n: count() }).from(chunks).where(eq(chunks.jobId, jobId)).groupBy(chunks.status).all();
  const stale = db.select({ n: count() }).from(chunks).where(and(eq(chunks.jobId, jobId), eq(chunks.stale, true))).get()?.n ?? 0;
  return { blocks: tally(b), chunks: { ...tally(c), stale } };
}

import { and, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, jobs, pages } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../db.js';
import { paginate } from '../paginate.js';
import type { JobsRepo, ReviewCounts } from '../repos/jobs-repo.js';
import { readJobIndex } from './collections.js';
import { readOcrPages } from './pages.js';
import { jobRecord, jobSet, newBlockRow, newChunkRow, newPageRow, tally } from '../rows/jobs.js';
import { insertMany } from './insert-many.js';
import type { TxGate } from './tx-gate.js';
import { claimable, claimSet } from '../queries/jobs.js';

const countOf = (db: DbLike, table: typeof blocks | typeof chunks, jobId: string) =>
  db.select({ n: count() }).from(table).where(eq(table.jobId, jobId)).get()?.n ?? 0;

/** How many of the job's blocks or chunks are in each review status. */
const statusCounts = (db: DbLike, table: typeof blocks | typeof chunks, jobId: string) =>
  db.select({ status: table.status, n: count() }).from(table).where(eq(table.jobId, jobId)).groupBy(table.status).all();

export function sqliteJobs(db: Db, gate: TxGate): JobsRepo {
  const reviewCounts = (jobId: string): ReviewCounts => {
    const b = statusCounts(db, blocks, jobId);
    const c = statusCounts(db, chunks, jobId);
    const stale =
      db
        .select({ n: count() })
        .from(chunks)
        .where(and(eq(chunks.jobId, jobId), eq(chunks.stale, true)))
        .get()?.n ?? 0;
    return { blocks: tally(b), chunks: { ...tally(c), stale } };
  };
  return {
    insert: (job) =>
      gate.call(() =>
        jobRecord(
          db
            .insert(jobs)
            .values({ ...jobSet(job), jobId: job.job_id, createdAt: job.created_at } as typeof jobs.$inferInsert)
            .returning()
            .get(),
        ),
      ),

    get: (jobId) =>
      gate.call(() => {
        const row = db.select().from(jobs).where(eq(jobs.jobId, jobId)).get();
        return row ? jobRecord(row) : null;
      }),

    list: (q) =>
      gate.call(() => {
        const byStatus = q.statuses.length > 0 ? inArray(jobs.status, q.statuses) : undefined;
        const inScope = q.scope ? or(inArray(jobs.jobId, q.scope.jobs), inArray(jobs.botId, q.scope.bots)) : undefined;
        return paginate(db, jobs, and(byStatus, inScope), [desc(jobs.createdAt), desc(jobs.jobId)], q, jobRecord);
      }),

    update: (jobId, set, whenStatus) =>
      gate.call(() => {
        const conds: SQL[] = [eq(jobs.jobId, jobId)];
        if (whenStatus) conds.push(inArray(jobs.status, [...whenStatus]));
        return (
          db
            .update(jobs)
            .set(jobSet(set))
            .where(and(...conds))
            .run().changes > 0
        );
      }),

    claim: (jobId, now, from = ['queued']) =>
      gate.call(() => {
        const row = db
          .update(jobs)
          .set(claimSet(jobs, now))
          .where(claimable(jobs, jobId, from))
          .returning()
          .get();
        return row ? jobRecord(row) : null;
      }),

    uncountAttempt: (jobId) =>
      gate.call(() => {
        db.update(jobs)
          .set({ attempts: sql`max(${jobs.attempts} - 1, 0)` })
          .where(eq(jobs.jobId, jobId))
          .run();
      }),

    requeueUnfinished: () =>
      gate.call(() =>
        db.transaction((tx) => {
          const rows = tx
            .select({ jobId: jobs.jobId })
            .from(jobs)
            .where(inArray(jobs.status, ['queued', 'processing']))
            .orderBy(jobs.createdAt)
            .all();
          if (rows.length > 0) tx.update(jobs).set({ status: 'queued' }).where(eq(jobs.status, 'processing')).run();
          return rows.map((r) => r.jobId);
        }),
      ),

    delete: (jobId) =>
      gate.call(() => {
        db.delete(jobs).where(eq(jobs.jobId, jobId)).run();
      }),

    saveExtraction: (jobId, x) =>
      gate.call(() =>
        // One transaction, each table's rows through one prepared statement (insert-many.ts): a long
        // document's thousands of blocks are saved in tens of milliseconds.
        db.transaction((tx) => {
          const job = tx.select({ status: jobs.status }).from(jobs).where(eq(jobs.jobId, jobId)).get();
          if (job?.status !== 'processing') return false;
          tx.delete(pages).where(eq(pages.jobId, jobId)).run();
          tx.delete(blocks).where(eq(blocks.jobId, jobId)).run();
          tx.delete(chunks).where(eq(chunks.jobId, jobId)).run();
          insertMany(
            tx,
            pages,
            x.pages.map((p) => newPageRow(jobId, p)),
          );
          insertMany(
            tx,
            blocks,
            x.blocks.map((b) => newBlockRow(jobId, b)),
          );
          insertMany(
            tx,
            chunks,
            x.chunks.map((c) => newChunkRow(jobId, c)),
          );
          tx.update(jobs).set(jobSet(x.job)).where(eq(jobs.jobId, jobId)).run();
          return true;
        }),
      ),

    blockTallies: (jobIds) =>
      gate.call(() => {
        const rows = jobIds.length
          ? db
              .select({ jobId: blocks.jobId, status: blocks.status, n: count() })
              .from(blocks)
              .where(inArray(blocks.jobId, [...jobIds]))
              .groupBy(blocks.jobId, blocks.status)
              .all()
          : [];
        return new Map(jobIds.map((id) => [id, tally(rows.filter((r) => r.jobId === id))]));
      }),

    reviewCounts: (jobId) => gate.call(() => reviewCounts(jobId)),

    status: (jobId) =>
      gate.call(() => {
        const row = db.select().from(jobs).where(eq(jobs.jobId, jobId)).get();
        if (!row) return null;
        return {
          job: jobRecord(row),
          ocr: readOcrPages(db, jobId),
          review: reviewCounts(jobId),
          index: readJobIndex(db, jobId),
        };
      }),

    recount: (jobId, now) =>
      gate.call(() => {
        const totals = { total_blocks: countOf(db, blocks, jobId), total_chunks: countOf(db, chunks, jobId) };
        db.update(jobs)
          .set({ totalBlocks: totals.total_blocks, totalChunks: totals.total_chunks, updatedAt: now })
          .where(eq(jobs.jobId, jobId))
          .run();
        return totals;
      }),
  };
}

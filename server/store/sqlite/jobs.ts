import { and, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, jobs, pages } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../db.js';
import { paginate } from '../paginate.js';
import type { JobChanges, JobRecord, JobsRepo, ReviewTally } from '../repos/jobs-repo.js';
import { newBlockRow } from './blocks.js';
import { newChunkRow } from './chunks.js';
import { insertMany } from './insert-many.js';
import { newPageRow } from './pages.js';
import type { TxGate } from './tx-gate.js';

type JobRow = typeof jobs.$inferSelect;

type JobInsert = typeof jobs.$inferInsert;

export const jobRecord = (r: JobRow): JobRecord => ({
  job_id: r.jobId,
  status: r.status as JobRecord['status'],
  source_file: r.sourceFile,
  format: r.format as JobRecord['format'],
  file_hash: r.fileHash,
  size_bytes: r.sizeBytes,
  title: r.title,
  total_pages: r.totalPages,
  pages_done: r.pagesDone,
  total_blocks: r.totalBlocks,
  total_chunks: r.totalChunks,
  options: r.options,
  warnings: r.warnings,
  error_code: r.errorCode,
  error_message: r.errorMessage,
  finalize_policy: r.finalizePolicy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  finalized_at: r.finalizedAt,
  bot_id: r.botId,
  source: r.source,
  page_size: r.pageSize,
  attempts: r.attempts,
  detected_language: r.detectedLanguage,
});

/** Fields to set, as a row's (those not given are left as they are). */
const jobSet = (c: JobChanges): Partial<JobInsert> => ({
  status: c.status,
  sourceFile: c.source_file,
  format: c.format,
  fileHash: c.file_hash,
  sizeBytes: c.size_bytes,
  title: c.title,
  totalPages: c.total_pages,
  pagesDone: c.pages_done,
  totalBlocks: c.total_blocks,
  totalChunks: c.total_chunks,
  options: c.options,
  warnings: c.warnings,
  errorCode: c.error_code,
  errorMessage: c.error_message,
  finalizePolicy: c.finalize_policy,
  updatedAt: c.updated_at,
  startedAt: c.started_at,
  finishedAt: c.finished_at,
  finalizedAt: c.finalized_at,
  botId: c.bot_id,
  source: c.source,
  pageSize: c.page_size,
  detectedLanguage: c.detected_language,
});

function tally(rows: { status: string; n: number }[]): ReviewTally {
  const out: ReviewTally = { pending: 0, approved: 0, edited: 0, rejected: 0 };
  for (const r of rows) if (r.status in out) out[r.status as keyof ReviewTally] = r.n;
  return out;
}

const countOf = (db: DbLike, table: typeof blocks | typeof chunks, jobId: string) => db.select({ n: count() }).from(table).where(eq(table.jobId, jobId)).get()?.n ?? 0;

export function sqliteJobs(db: Db, gate: TxGate): JobsRepo {
  return {
    insert: (job) =>
      gate.call(() => jobRecord(db.insert(jobs).values({ ...jobSet(job), jobId: job.job_id, createdAt: job.created_at } as JobInsert).returning().get())),

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
        return db.update(jobs).set(jobSet(set)).where(and(...conds)).run().changes > 0;
      }),

    claim: (jobId, now) =>
      gate.call(() => {
        const row = db
          .update(jobs)
          .set({ status: 'processing', startedAt: now, updatedAt: now, pagesDone: 0, attempts: sql`${jobs.attempts} + 1` })
          .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'queued')))
          .returning()
          .get();
        return row ? jobRecord(row) : null;
      }),

    uncountAttempt: (jobId) =>
      gate.call(() => {
        db.update(jobs).set({ attempts: sql`max(${jobs.attempts} - 1, 0)` }).where(eq(jobs.jobId, jobId)).run();
      }),

    requeueUnfinished: () =>
      gate.call(() =>
        db.transaction((tx) => {
          const rows = tx.select({ jobId: jobs.jobId }).from(jobs).where(inArray(jobs.status, ['queued', 'processing'])).orderBy(jobs.createdAt).all();
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
          insertMany(tx, pages, x.pages.map((p) => newPageRow(jobId, p)));
          insertMany(tx, blocks, x.blocks.map((b) => newBlockRow(jobId, b)));
          insertMany(tx, chunks, x.chunks.map((c) => newChunkRow(jobId, c)));
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

    reviewCounts: (jobId) =>
      gate.call(() => {
        const b = db.select({ status: blocks.status, n: count() }).from(blocks).where(eq(blocks.jobId, jobId)).groupBy(blocks.status).all();
        const c = db.select({ status: chunks.status, n: count() }).from(chunks).where(eq(chunks.jobId, jobId)).groupBy(chunks.status).all();
        const stale = db.select({ n: count() }).from(chunks).where(and(eq(chunks.jobId, jobId), eq(chunks.stale, true))).get()?.n ?? 0;
        return { blocks: tally(b), chunks: { ...tally(c), stale } };
      }),

    recount: (jobId, now) =>
      gate.call(() => {
        const totals = { total_blocks: countOf(db, blocks, jobId), total_chunks: countOf(db, chunks, jobId) };
        db.update(jobs).set({ totalBlocks: totals.total_blocks, totalChunks: totals.total_chunks, updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
        return totals;
      }),
  };
}

import { and, eq, inArray, sql } from 'drizzle-orm';
import { jobs } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import type { FileStore } from '../../store/file-store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { TaskPool } from '../pool.js';
import type { DocumentFormat } from '../extract/types.js';
import { saveExtraction } from './save-extraction.js';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-languages.js';
import { JOB_LIMIT_DEFAULTS } from '../extract/limits.js';
import type { JobWatch } from './job-watch.js';

/** Least time between two progress writes of one job. */
const PROGRESS_WRITE_MS = 100;

/** Extractions a job gets: the first, and one retry after its worker thread (or the whole server) died. */
const MAX_ATTEMPTS = 2;

/** Failures of the thread rather than of the document's content: worth one more try on a fresh thread. */
const THREAD_FAILURES = new Set(['OUT_OF_MEMORY', 'WORKER_DIED']);

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface JobRunnerDeps {
  db: Db;
  pool: TaskPool;
  files: FileStore;
  clock: Clock;
  log: Logger;
  watch: Pick<JobWatch, 'changed'>;
  /** Wall time of one extraction (setting max_job_seconds); JOB_LIMIT_DEFAULTS when absent. */
  maxJobSeconds?: number;
}

/**
 * Runs queued jobs through the worker pool, as many at once as the pool has threads, in arrival order.
 * Each running job has an AbortController: cancel and delete abort it, which terminates its worker, and so
 * does the job's wall-time limit (JOB_TIMEOUT). On close, running jobs are aborted but keep their status,
 * so the next start resumes them.
 *
 * A job's attempts are counted as it is claimed, before any work: a job whose worker thread ran out of
 * memory or died is tried once more, then failed with that reason; a job found unfinished at start-up with
 * its attempts used up was running when the server died, twice, and is failed (WORKER_DIED) instead of
 * taking the server down again.
 */
export function createJobRunner({ db, pool, files, clock, log, watch, maxJobSeconds = JOB_LIMIT_DEFAULTS.maxJobSeconds }: JobRunnerDeps) {
  const queue: string[] = [];
  const running = new Map<string, AbortController>();
  const finished = new Set<Promise<void>>();
  let closing = false;

  function pump(): void {
    while (!closing && running.size < pool.threads && queue.length > 0) {
      const jobId = queue.shift()!;
      const controller = new AbortController();
      running.set(jobId, controller);
      const done = run(jobId, controller).finally(() => {
        running.delete(jobId);
        finished.delete(done);
        pump();
      });
      finished.add(done);
    }
  }

  function fail(jobId: string, failure: { code: string; message: string }): void {
    log.warn({ jobId, failure }, 'job failed');
    const at = isoNow(clock);
    db.update(jobs)
      .set({ status: 'failed', errorCode: failure.code, errorMessage: failure.message, finishedAt: at, updatedAt: at })
      .where(eq(jobs.jobId, jobId))
      .run();
    watch.changed(jobId);
  }

  /** Takes a queued job, counting the attempt before any work; undefined if it is no longer queued. */
  function claim(jobId: string) {
    const now = isoNow(clock);
    return db
      .update(jobs)
      .set({ status: 'processing', startedAt: now, updatedAt: now, pagesDone: 0, attempts: sql`${jobs.attempts} + 1` })
      .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'queued')))
      .returning()
      .get();
  }

  function extract(jobId: string, claimed: typeof jobs.$inferSelect, signal: AbortSignal) {
    // A commit per page would cost the main thread more than the pages cost the workers on a long PDF;
    // a few writes a second keep the progress live (the last page is written when the job is saved).
    let progressWrittenAt = -Infinity;
    return pool.extract(
      {
        path: files.originalPath(jobId, claimed.sourceFile),
        format: claimed.format as DocumentFormat,
        chunk: { target_tokens: claimed.options.chunk_size, overlap_tokens: claimed.options.chunk_overlap },
        id_seed: jobId,
        ocr: { lang: claimed.options.ocr_language ?? DEFAULT_OCR_LANG },
      },
      {
        signal,
        onProgress: ({ pagesDone, totalPages }) => {
          const at = performance.now();
          if (at - progressWrittenAt < PROGRESS_WRITE_MS && pagesDone < totalPages) return;
          progressWrittenAt = at;
          db.update(jobs).set({ pagesDone, totalPages, updatedAt: isoNow(clock) }).where(eq(jobs.jobId, jobId)).run();
          watch.changed(jobId);
        },
      },
    );
  }

  /** A failed extraction: retried once if its thread failed, else the job fails with the reason. */
  function failed(jobId: string, attempt: number, err: unknown): void {
    const failure = describeFailure(err);
    if (!THREAD_FAILURES.has(failure.code)) return fail(jobId, failure);
    if (attempt < MAX_ATTEMPTS && !closing) {
      log.warn({ jobId, failure, attempt }, 'job failed on its worker thread; trying once more');
      db.update(jobs).set({ status: 'queued', pagesDone: 0, updatedAt: isoNow(clock) }).where(eq(jobs.jobId, jobId)).run();
      watch.changed(jobId);
      queue.push(jobId);
      return;
    }
    fail(jobId, { code: failure.code, message: `${failure.message} (attempt ${attempt} of ${MAX_ATTEMPTS})` });
  }

  async function run(jobId: string, controller: AbortController): Promise<void> {
    const claimed = claim(jobId);
    if (!claimed) return;
    if (claimed.attempts > MAX_ATTEMPTS) {
      const times = claimed.attempts - 1;
      return fail(jobId, { code: 'WORKER_DIED', message: `the server stopped while reading this document ${times} times (it crashed or was killed); it is not tried again` });
    }
    watch.changed(jobId);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, maxJobSeconds * 1000);
    try {
      const out = await extract(jobId, claimed, controller.signal);
      if (saveExtraction(db, jobId, out, isoNow(clock))) log.info({ jobId, blocks: out.blocks.length }, 'job ready for review');
      watch.changed(jobId);
    } catch (err) {
      if (timedOut) return fail(jobId, { code: 'JOB_TIMEOUT', message: `reading the document took longer than ${maxJobSeconds} s (setting max_job_seconds)` });
      if (!controller.signal.aborted) return failed(jobId, claimed.attempts, err);
      // Cancelled, deleted or shutting down: whoever aborted set the status. An attempt stopped by close()
      // did not fail, so it does not count against the job.
      if (closing) db.update(jobs).set({ attempts: sql`max(${jobs.attempts} - 1, 0)` }).where(eq(jobs.jobId, jobId)).run();
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    enqueue(jobId: string): void {
      queue.push(jobId);
      pump();
    },
    /** Stops a job's work if it is queued or running here; the caller records the new status. */
    abort(jobId: string): void {
      const i = queue.indexOf(jobId);
      if (i >= 0) queue.splice(i, 1);
      running.get(jobId)?.abort();
    },
    /** Jobs left queued or processing by a previous run of the server go back in the queue. */
    resumeUnfinished(): number {
      const rows = db
        .select({ jobId: jobs.jobId })
        .from(jobs)
        .where(inArray(jobs.status, ['queued', 'processing']))
        .orderBy(jobs.createdAt)
        .all();
      if (rows.length > 0) {
        db.update(jobs).set({ status: 'queued' }).where(inArray(jobs.status, ['processing'])).run();
        for (const r of rows) queue.push(r.jobId);
        log.info({ jobs: rows.length }, 'resuming unfinished jobs');
        pump();
      }
      return rows.length;
    },
    async close(): Promise<void> {
      closing = true;
      queue.length = 0;
      for (const c of running.values()) c.abort();
      await Promise.allSettled([...finished]);
    },
  };
}
export type JobRunner = ReturnType<typeof createJobRunner>;

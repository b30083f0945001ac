import { and, eq, inArray } from 'drizzle-orm';
import { jobs } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import type { FileStore } from '../../store/file-store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { TaskPool } from '../pool.js';
import type { DocumentFormat } from '../extract/types.js';
import { saveExtraction } from './save-extraction.js';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-languages.js';
import type { JobWatch } from './job-watch.js';

/** Least time between two progress writes of one job. */
const PROGRESS_WRITE_MS = 100;

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
}

/**
 * Runs queued jobs through the worker pool, as many at once as the pool has threads, in arrival order.
 * Each running job has an AbortController: cancel and delete abort it, which terminates its worker.
 * On close, running jobs are aborted but keep their status, so the next start resumes them.
 */
export function createJobRunner({ db, pool, files, clock, log, watch }: JobRunnerDeps) {
  const queue: string[] = [];
  const running = new Map<string, AbortController>();
  const finished = new Set<Promise<void>>();
  let closing = false;

  function pump(): void {
    while (!closing && running.size < pool.threads && queue.length > 0) {
      const jobId = queue.shift()!;
      const controller = new AbortController();
      running.set(jobId, controller);
      const done = run(jobId, controller.signal).finally(() => {
        running.delete(jobId);
        finished.delete(done);
        pump();
      });
      finished.add(done);
    }
  }

  async function run(jobId: string, signal: AbortSignal): Promise<void> {
    const now = isoNow(clock);
    const claimed = db
      .update(jobs)
      .set({ status: 'processing', startedAt: now, updatedAt: now, pagesDone: 0 })
      .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'queued')))
      .returning()
      .get();
    if (!claimed) return;
    watch.changed(jobId);
    // A commit per page would cost the main thread more than the pages cost the workers on a long PDF;
    // a few writes a second keep the progress live (the last page is written when the job is saved).
    let progressWrittenAt = -Infinity;
    try {
      const out = await pool.extract(
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
      if (saveExtraction(db, jobId, out, isoNow(clock))) log.info({ jobId, blocks: out.blocks.length }, 'job ready for review');
      watch.changed(jobId);
    } catch (err) {
      if (signal.aborted) return; // cancelled, deleted, or shutting down: whoever aborted set the status
      const failure = describeFailure(err);
      log.warn({ jobId, failure }, 'job failed');
      const at = isoNow(clock);
      db.update(jobs)
        .set({ status: 'failed', errorCode: failure.code, errorMessage: failure.message, finishedAt: at, updatedAt: at })
        .where(eq(jobs.jobId, jobId))
        .run();
      watch.changed(jobId);
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

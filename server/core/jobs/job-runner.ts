import type { FileStore } from '../../store/file-store.js';
import type { JobRecord } from '../../store/repos/jobs-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { TaskPool } from '../pool.js';
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
  store: Store;
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
export function createJobRunner({ store, pool, files, clock, log, watch, maxJobSeconds = JOB_LIMIT_DEFAULTS.maxJobSeconds }: JobRunnerDeps) {
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

  async function fail(jobId: string, failure: { code: string; message: string }): Promise<void> {
    log.warn({ jobId, failure }, 'job failed');
    const at = isoNow(clock);
    await store.jobs.update(jobId, { status: 'failed', error_code: failure.code, error_message: failure.message, finished_at: at, updated_at: at });
    watch.changed(jobId);
  }

  function extract(jobId: string, claimed: JobRecord, signal: AbortSignal) {
    // A commit per page would cost the main thread more than the pages cost the workers on a long PDF;
    // a few writes a second keep the progress live (the last page is written when the job is saved).
    let progressWrittenAt = -Infinity;
    return pool.extract(
      {
        path: files.originalPath(jobId, claimed.source_file),
        format: claimed.format,
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
          store.jobs.update(jobId, { pages_done: pagesDone, total_pages: totalPages, updated_at: isoNow(clock) }).then(
            () => watch.changed(jobId),
            // Progress only: the save at the end writes the last page whatever became of this write.
            (err: unknown) => log.warn({ jobId, err }, 'could not record progress'),
          );
        },
      },
    );
  }

  /** A failed extraction: retried once if its thread failed, else the job fails with the reason. */
  async function failed(jobId: string, attempt: number, err: unknown): Promise<void> {
    const failure = describeFailure(err);
    if (!THREAD_FAILURES.has(failure.code)) return fail(jobId, failure);
    if (attempt < MAX_ATTEMPTS && !closing) {
      log.warn({ jobId, failure, attempt }, 'job failed on its worker thread; trying once more');
      await store.jobs.update(jobId, { status: 'queued', pages_done: 0, updated_at: isoNow(clock) });
      watch.changed(jobId);
      queue.push(jobId);
      return;
    }
    fail(jobId, { code: failure.code, message: `${failure.message} (attempt ${attempt} of ${MAX_ATTEMPTS})` });
  }

  async function run(jobId: string, controller: AbortController): Promise<void> {
    const claimed = await store.jobs.claim(jobId, isoNow(clock));
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
      if (await saveExtraction(store, jobId, out, isoNow(clock))) log.info({ jobId, blocks: out.blocks.length }, 'job ready for review');
      watch.changed(jobId);
    } catch (err) {
      if (timedOut) return fail(jobId, { code: 'JOB_TIMEOUT', message: `reading the document took longer than ${maxJobSeconds} s (setting max_job_seconds)` });
      if (!controller.signal.aborted) return failed(jobId, claimed.attempts, err);
      // Cancelled, deleted or shutting down: whoever aborted set the status. An attempt stopped by close()
      // did not fail, so it does not count against the job.
      if (closing) await store.jobs.uncountAttempt(jobId);
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
    async resumeUnfinished(): Promise<number> {
      const ids = await store.jobs.requeueUnfinished();
      if (ids.length > 0) {
        queue.push(...ids);
        log.info({ jobs: ids.length }, 'resuming unfinished jobs');
        pump();
      }
      return ids.length;
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

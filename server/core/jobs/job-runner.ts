import type { FileStore } from '../../store/file-store.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { TaskPool } from '../pool.js';
import { saveExtraction } from './save-extraction.js';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-languages.js';
import { JOB_LIMIT_DEFAULTS } from '../extract/limits.js';
import type { JobWatch } from './job-watch.js';
import { MAX_ATTEMPTS, type JobClaim, type JobFailure, type JobQueue } from './job-queue.js';

/** Least time between two progress writes of one job. */
const PROGRESS_WRITE_MS = 100;

/** Failures of the thread rather than of the document's content: worth one more try on a fresh thread. */
const THREAD_FAILURES = new Set(['OUT_OF_MEMORY', 'WORKER_DIED']);

/** Why a running job's work was stopped (its AbortSignal's reason). */
type StopReason = 'cancel' | 'close' | 'lost' | 'timeout';

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
  queue: JobQueue;
  /** Jobs read at once; the pool's threads by default. 0: this node reads nothing (it only queues). */
  slots?: number;
  /** Wall time of one extraction (setting max_job_seconds); JOB_LIMIT_DEFAULTS when absent. */
  maxJobSeconds?: number;
}

/**
 * Reads the queue's jobs through the worker pool, as many at once as the pool has threads, in the order
 * the queue gives them. Each running job has an AbortController: cancel and delete abort it, which
 * terminates its worker, and so do the job's wall-time limit (JOB_TIMEOUT) and the loss of its claim
 * (another node took it). On close, running jobs are aborted and given back to the queue uncounted, so
 * the next start (or another node) resumes them.
 *
 * A job's attempts are counted as it is claimed, before any work: a job whose worker thread ran out of
 * memory or died is tried once more, then failed with that reason.
 */
export function createJobRunner({ store, pool, files, clock, log, watch, queue, slots = pool.threads, maxJobSeconds = JOB_LIMIT_DEFAULTS.maxJobSeconds }: JobRunnerDeps) {
  const running = new Map<string, AbortController>();
  const stopping = new AbortController();
  let loops: Promise<void>[] = [];

  const stop = (jobId: string, reason: StopReason): void => running.get(jobId)?.abort(reason);
  queue.onCancel((jobId) => stop(jobId, 'cancel'));

  async function fail(jobId: string, failure: JobFailure, whenStatus?: readonly string[]): Promise<void> {
    log.warn({ jobId, failure }, 'job failed');
    const at = isoNow(clock);
    await store.jobs.update(jobId, { status: 'failed', error_code: failure.code, error_message: failure.message, finished_at: at, updated_at: at }, whenStatus);
    watch.changed(jobId);
  }

  function extract(jobId: string, claim: JobClaim, signal: AbortSignal) {
    const claimed = claim.job;
    // A commit per page would cost the main thread more than the pages cost the workers on a long PDF;
    // a few writes a second keep the progress live (the last page is written when the job is saved).
    let progressWrittenAt = -Infinity;
    // The pool reads a local file: the original's own in a folder store, else a copy removed once read.
    return files.useOriginal(jobId, claimed.source_file, (path) => pool.extract(
      {
        path,
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
          Promise.all([store.jobs.update(jobId, { pages_done: pagesDone, total_pages: totalPages, updated_at: isoNow(clock) }), claim.progress(pagesDone, totalPages)]).then(
            () => watch.changed(jobId),
            // Progress only: the save at the end writes the last page whatever became of this write.
            (err: unknown) => log.warn({ jobId, err }, 'could not record progress'),
          );
        },
      },
    ));
  }

  /** A failed extraction: retried once if its thread failed, else the job fails with the reason. */
  async function failed(claim: JobClaim, err: unknown): Promise<void> {
    const jobId = claim.job.job_id;
    const attempt = claim.job.attempts;
    const failure = describeFailure(err);
    if (!THREAD_FAILURES.has(failure.code)) {
      await fail(jobId, failure);
      return claim.finish(failure);
    }
    if (attempt < MAX_ATTEMPTS && !stopping.signal.aborted) {
      log.warn({ jobId, failure, attempt }, 'job failed on its worker thread; trying once more');
      await store.jobs.update(jobId, { status: 'queued', pages_done: 0, updated_at: isoNow(clock) });
      watch.changed(jobId);
      return claim.retry(failure);
    }
    const last = { code: failure.code, message: `${failure.message} (attempt ${attempt} of ${MAX_ATTEMPTS})` };
    await fail(jobId, last);
    return claim.finish(last);
  }

  /** Renews the claim while the pool reads; a claim taken away stops the work. */
  function keepClaim(claim: JobClaim, controller: AbortController): () => void {
    if (queue.heartbeatMs <= 0) return () => undefined;
    const beat = setInterval(() => {
      claim.heartbeat().then(
        (kept) => {
          if (!kept) controller.abort('lost');
        },
        // The database may be back before the lease runs out; if not, the next beat hears it was lost.
        (err: unknown) => log.warn({ jobId: claim.job.job_id, err }, 'could not renew the claim on a job'),
      );
    }, queue.heartbeatMs);
    return () => clearInterval(beat);
  }

  async function run(claim: JobClaim): Promise<void> {
    const jobId = claim.job.job_id;
    const controller = new AbortController();
    running.set(jobId, controller);
    watch.changed(jobId);
    const timer = setTimeout(() => controller.abort('timeout'), maxJobSeconds * 1000);
    const release = keepClaim(claim, controller);
    try {
      const out = await extract(jobId, claim, controller.signal);
      // Another node may have taken the job while this one read it: it saves, not this one.
      if (!(await claim.heartbeat())) return;
      if (await saveExtraction(store, jobId, out, isoNow(clock))) log.info({ jobId, blocks: out.blocks.length }, 'job ready for review');
      await claim.finish();
      watch.changed(jobId);
    } catch (err) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === 'timeout') {
        const failure = { code: 'JOB_TIMEOUT', message: `reading the document took longer than ${maxJobSeconds} s (setting max_job_seconds)` };
        await fail(jobId, failure);
        return claim.finish(failure);
      }
      if (!reason) return failed(claim, err);
      log.info({ jobId, reason }, 'stopped reading a job');
      // Cancelled or deleted: whoever did it set the status; lost: the job is another node's now. An
      // attempt stopped by close() did not fail, so it does not count against the job.
      if (reason === 'close') await claim.release();
    } finally {
      clearTimeout(timer);
      release();
      running.delete(jobId);
    }
  }

  /** One of the runner's slots: takes the queue's next job, reads it, and again, until the runner closes. */
  async function slot(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const next = await queue.next(stopping.signal);
        if (!next) return;
        if (next.action === 'fail') await fail(next.jobId, next.error, ['queued', 'processing']);
        else await run(next.claim);
      } catch (err) {
        // The database went away for a moment: the queue still holds the work; look again shortly.
        log.error({ err }, 'the job runner could not take or finish a job');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  function start(): void {
    if (loops.length === 0 && !stopping.signal.aborted) loops = Array.from({ length: slots }, () => slot());
  }

  return {
    /** Starts reading the queue's jobs. */
    start,
    async enqueue(jobId: string): Promise<void> {
      await queue.enqueue(jobId);
    },
    /** Stops a job's work, queued or running, on this node or another; the caller records the new status. */
    async abort(jobId: string): Promise<void> {
      stop(jobId, 'cancel');
      await queue.cancel(jobId);
    },
    /** Jobs left queued or processing by a previous run go back in the queue; then reading starts. */
    async resumeUnfinished(): Promise<number> {
      const resumed = await queue.resumeUnfinished();
      if (resumed > 0) log.info({ jobs: resumed }, 'resuming unfinished jobs');
      start();
      return resumed;
    },
    async close(): Promise<void> {
      stopping.abort();
      for (const c of running.values()) c.abort('close');
      await Promise.allSettled(loops);
      await queue.close();
    },
  };
}
export type JobRunner = ReturnType<typeof createJobRunner>;

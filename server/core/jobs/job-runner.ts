import type { FileStore } from '../../store/file-store.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { TaskPool } from '../pool.js';
import { saveExtraction } from './save-extraction.js';
import type { ExtractTaskOutput } from '../tasks.js';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-languages.js';
import { JOB_LIMIT_DEFAULTS } from '../extract/limits.js';
import type { JobWatch } from './job-watch.js';
import { sleep } from '../sleep.js';
import {
  MAX_ATTEMPTS,
  type EmbedClaim,
  type EmbedOrder,
  type JobClaim,
  type JobFailure,
  type JobQueue,
} from './job-queue.js';
import type { EmbedWork } from '../indexing/embed-work.js';

/** Least time between two progress writes of one job. */
const PROGRESS_WRITE_MS = 100;

/** Failures of the thread rather than of the document's content: worth one more try on a fresh thread. */
const THREAD_FAILURES = new Set(['OUT_OF_MEMORY', 'WORKER_DIED']);

/** Why a running job's work was stopped (its AbortSignal's reason). */
type StopReason = 'cancel' | 'close' | 'lost' | 'timeout';

/** First and longest wait between two tries of a write the database could not take (a team server's restart). */
const UNAVAILABLE_FIRST_WAIT_MS = 250;
const UNAVAILABLE_MAX_WAIT_MS = 2000;

const unavailable = (err: unknown): boolean => describeFailure(err).code === 'DATABASE_UNAVAILABLE';

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
  /** Runs the embeds this node takes. */
  embedder: Pick<EmbedWork, 'run'>;
  /** Embeds taken from the queue at once (a team's `embed` tasks), beside the reads; 0: none (the desktop runs each as it is accepted). */
  embedSlots?: number;
}

/**
 * Reads the queue's jobs through the worker pool, as many at once as the pool has threads, in the order
 * the queue gives them, and embeds the queue's embeds (its `embedSlots` at once, besides those this node
 * runs as it accepts them). Each running job has an AbortController: cancel and delete abort it, which
 * terminates its worker, and so do the job's wall-time limit (JOB_TIMEOUT) and the loss of its claim
 * (another node took it). On close, running jobs are aborted and given back to the queue uncounted, so
 * the next start (or another node) resumes them.
 *
 * A job's attempts are counted as it is claimed, before any work: a job whose worker thread ran out of
 * memory or died is tried once more, then failed with that reason.
 */
export function createJobRunner({
  store,
  pool,
  files,
  clock,
  log,
  watch,
  queue,
  slots = pool.threads,
  maxJobSeconds = JOB_LIMIT_DEFAULTS.maxJobSeconds,
  embedder,
  embedSlots = 0,
}: JobRunnerDeps) {
  /** The work under way on this node, reads and embeds, by job (a job is read or embedded, never both). */
  const running = new Map<string, AbortController>();
  const stopping = new AbortController();
  let loops: Promise<void>[] = [];
  /** Embeds this node runs as it accepted them, outside the slots. */
  const held = new Set<Promise<void>>();

  const stop = (jobId: string, reason: StopReason): void => running.get(jobId)?.abort(reason);
  queue.onCancel((jobId) => stop(jobId, 'cancel'));

  /**
   * Runs `write` (a job's outcome, its claim) and, while it fails with DATABASE_UNAVAILABLE (a team server's
   * PostgreSQL restarting), runs it again until the database is back, unless `gaveUp` says to stop (the
   * claim was lost or taken back) or the runner closes: then the error is thrown. A document read during an
   * outage is so saved once the database returns, instead of being failed with a connection error, or
   * dropped and read again by whoever claims it after its lease. Each write is one statement or one
   * transaction, so a try that broke off left nothing, and a second one finds what a first one committed.
   */
  async function persist<T>(
    jobId: string,
    what: string,
    write: () => Promise<T>,
    gaveUp: () => boolean = () => false,
  ): Promise<T> {
    let wait = UNAVAILABLE_FIRST_WAIT_MS;
    let told = false;
    for (;;) {
      try {
        const out = await write();
        if (told) log.info({ jobId, what }, 'the database is back; went on with a job');
        return out;
      } catch (err) {
        if (!unavailable(err) || gaveUp() || stopping.signal.aborted) throw err;
        if (!told)
          log.warn(
            { jobId, what, err: describeFailure(err) },
            'the database is unavailable; trying again until it is back',
          );
        told = true;
        // Cut short when the runner closes, which then gives up at once.
        await sleep(wait, stopping.signal);
        wait = Math.min(wait * 2, UNAVAILABLE_MAX_WAIT_MS);
      }
    }
  }

  async function fail(jobId: string, failure: JobFailure, whenStatus?: readonly string[]): Promise<void> {
    log.warn({ jobId, failure }, 'job failed');
    const at = isoNow(clock);
    await persist(jobId, 'fail', () =>
      store.jobs.update(
        jobId,
        { status: 'failed', error_code: failure.code, error_message: failure.message, finished_at: at, updated_at: at },
        whenStatus,
      ),
    );
    watch.changed(jobId);
  }

  /**
   * Records pages read, one write at a time (two writes racing on the pool's connections could commit in
   * the wrong order and show the progress going back), the newest waiting one next; `settled` waits for the
   * last one, so none lands after the job is saved. Only a processing job's row is written.
   */
  function progressWriter(jobId: string, claim: JobClaim) {
    let next: { pagesDone: number; totalPages: number } | null = null;
    let writing: Promise<void> | null = null;
    let failing = false;
    const drain = async (): Promise<void> => {
      while (next) {
        const { pagesDone, totalPages } = next;
        next = null;
        try {
          await Promise.all([
            store.jobs.update(jobId, { pages_done: pagesDone, total_pages: totalPages, updated_at: isoNow(clock) }, [
              'processing',
            ]),
            claim.progress(pagesDone, totalPages),
          ]);
          failing = false;
          watch.changed(jobId);
        } catch (err) {
          // Progress only: the save at the end writes the last page whatever became of this write. Said
          // once while the database is away, not for every page.
          if (!failing) log.warn({ jobId, err: describeFailure(err) }, 'could not record progress');
          failing = true;
        }
      }
    };
    return {
      write(pagesDone: number, totalPages: number): void {
        next = { pagesDone, totalPages };
        writing ??= drain().finally(() => (writing = null));
      },
      settled: (): Promise<void> => writing ?? Promise.resolve(),
    };
  }

  function extract(jobId: string, claim: JobClaim, signal: AbortSignal, progress: ReturnType<typeof progressWriter>) {
    const claimed = claim.job;
    // A commit per page would cost the main thread more than the pages cost the workers on a long PDF;
    // a few writes a second keep the progress live. A document read within the first beat writes none (its
    // save says it all, a moment later); a longer one writes its last page too, which it then chunks.
    let progressWrittenAt = performance.now();
    let wroteProgress = false;
    // The pool reads a local file: the original's own in a folder store, else a copy removed once read.
    return files.useOriginal(jobId, claimed.source_file, (path) =>
      pool.extract(
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
            const last = pagesDone >= totalPages && wroteProgress;
            if (at - progressWrittenAt < PROGRESS_WRITE_MS && !last) return;
            progressWrittenAt = at;
            wroteProgress = true;
            progress.write(pagesDone, totalPages);
          },
        },
      ),
    );
  }

  /** A failed extraction: retried once if its thread failed, else the job fails with the reason. */
  async function failed(claim: JobClaim, err: unknown, gaveUp: () => boolean): Promise<void> {
    const jobId = claim.job.job_id;
    const attempt = claim.job.attempts;
    const failure = describeFailure(err);
    if (!THREAD_FAILURES.has(failure.code)) {
      await fail(jobId, failure);
      return persist(jobId, 'finish', () => claim.finish(failure), gaveUp);
    }
    if (attempt < MAX_ATTEMPTS && !stopping.signal.aborted) {
      log.warn({ jobId, failure, attempt }, 'job failed on its worker thread; trying once more');
      await persist(
        jobId,
        'requeue',
        () => store.jobs.update(jobId, { status: 'queued', pages_done: 0, updated_at: isoNow(clock) }),
        gaveUp,
      );
      watch.changed(jobId);
      return persist(jobId, 'requeue', () => claim.retry(failure), gaveUp);
    }
    const last = { code: failure.code, message: `${failure.message} (attempt ${attempt} of ${MAX_ATTEMPTS})` };
    await fail(jobId, last);
    return persist(jobId, 'finish', () => claim.finish(last), gaveUp);
  }

  /**
   * Renews the claim while the pool works, and while its outcome waits for the database; a claim taken
   * away stops the work (`lost` is then true).
   */
  function keepClaim(jobId: string, claim: Pick<JobClaim, 'heartbeat'>, controller: AbortController) {
    const kept = { lost: false, release: (): void => undefined };
    if (queue.heartbeatMs <= 0) return kept;
    // One beat at a time: beats to a database that does not answer would otherwise pile up, each holding
    // a pooled connection until its bound runs out.
    let beating = false;
    const beat = setInterval(() => {
      if (beating) return;
      beating = true;
      claim
        .heartbeat()
        .then(
          (held) => {
            if (held) return;
            kept.lost = true;
            controller.abort('lost');
          },
          // The database may be back before the lease runs out (a restart): the work goes on, and the next
          // beat renews the claim; if the lease ran out and another node took the job, that beat says so.
          (err: unknown) => log.warn({ jobId, err: describeFailure(err) }, 'could not renew the claim on a job'),
        )
        .finally(() => (beating = false));
    }, queue.heartbeatMs);
    kept.release = () => clearInterval(beat);
    return kept;
  }

  /**
   * Saves a reading and ends its claim in one transaction, so that both happen or neither: a node that dies
   * between them leaves no saved job under a task still running. Whether the job was saved (false: it was
   * cancelled or deleted meanwhile); 'lost', writing nothing, when another node took the job while this one read
   * it: that node saves, not this one.
   */
  async function savedWithClaim(jobId: string, claim: JobClaim, out: ExtractTaskOutput): Promise<boolean | 'lost'> {
    const lost = new Error('lost');
    try {
      return await store.transaction(async (tx) => {
        const ready = await saveExtraction(tx, jobId, out, isoNow(clock));
        if (!(await claim.complete())) throw lost;
        return ready;
      });
    } catch (err) {
      if (err === lost) return 'lost';
      throw err;
    }
  }

  async function run(claim: JobClaim): Promise<void> {
    const jobId = claim.job.job_id;
    const controller = new AbortController();
    running.set(jobId, controller);
    watch.changed(jobId);
    const timer = setTimeout(() => controller.abort('timeout'), maxJobSeconds * 1000);
    const kept = keepClaim(jobId, claim, controller);
    // Writes of the outcome stop being tried once the claim is lost or the job cancelled or deleted.
    const gaveUp = (): boolean => kept.lost || controller.signal.reason === 'cancel';
    const progress = progressWriter(jobId, claim);
    try {
      const readFrom = performance.now();
      const out = await extract(jobId, claim, controller.signal, progress);
      clearTimeout(timer);
      await progress.settled();
      // Said with the outcome, so that a slow document can be told from a slow database in the log.
      const saveFrom = performance.now();
      // Tried again while the database is unavailable: the pages read are kept until it is back.
      await persist(
        jobId,
        'save',
        async () => {
          const ready = await savedWithClaim(jobId, claim, out);
          if (ready === 'lost') return;
          watch.changed(jobId);
          if (ready)
            log.info(
              {
                jobId,
                blocks: out.blocks.length,
                read_ms: Math.round(saveFrom - readFrom),
                save_ms: Math.round(performance.now() - saveFrom),
              },
              'job ready for review',
            );
        },
        gaveUp,
      );
    } catch (err) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (unavailable(err)) {
        // Given up on the database (the runner closes, or the claim was lost meanwhile): not the document's
        // fault. The job stays processing under its task, whose lease runs out; whoever claims it then reads it.
        log.warn({ jobId, reason, err: describeFailure(err) }, 'left a job to its lease: the database is unavailable');
        return;
      }
      if (reason === 'timeout') {
        const failure = {
          code: 'JOB_TIMEOUT',
          message: `reading the document took longer than ${maxJobSeconds} s (setting max_job_seconds)`,
        };
        await fail(jobId, failure);
        return persist(jobId, 'finish', () => claim.finish(failure), gaveUp);
      }
      if (!reason) return failed(claim, err, gaveUp);
      log.info({ jobId, reason }, 'stopped reading a job');
      // Cancelled or deleted: whoever did it set the status; lost: the job is another node's now. An
      // attempt stopped by close() did not fail, so it does not count against the job.
      if (reason === 'close') await claim.release();
    } finally {
      clearTimeout(timer);
      kept.release();
      running.delete(jobId);
    }
  }

  const jobExists = async (jobId: string) => (await store.lookups.existingJobs([jobId])).has(jobId);

  /**
   * Embeds a job under its claim: the job ends `indexed` (the claim completed in the same transaction), or
   * back at rest with why it failed. Stopped: by a delete (whoever deleted it removes the rest), by the
   * loss of its claim (another node has it), or by close (the claim is released: another node goes on, or
   * on the desktop the job rests, to be embedded again).
   */
  async function runEmbed(claim: EmbedClaim): Promise<void> {
    const { jobId } = claim;
    const controller = new AbortController();
    running.set(jobId, controller);
    const kept = keepClaim(jobId, claim, controller);
    try {
      const outcome = await embedder.run(jobId, claim.order, controller.signal, {
        progress: (embedded, total) => {
          watch.changed(jobId);
          // Progress only: the job's row has it already.
          claim
            .progress(embedded, total)
            .catch((err: unknown) => log.warn({ jobId, err }, 'could not record progress'));
        },
        stillHeld: () => claim.heartbeat(),
        complete: () => claim.complete(),
      });
      // Deleted or put back to rest before it was taken: nothing left to do.
      if (outcome === 'not_embedding') await claim.complete();
      if (outcome === 'lost') log.info({ jobId, reason: 'lost' }, 'stopped embedding a job');
    } catch (err) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason) {
        log.info({ jobId, reason }, 'stopped embedding a job');
        if (reason === 'close') await claim.release();
      } else {
        const failure = describeFailure(err);
        // A job deleted meanwhile fails for that reason alone: nothing worth a warning.
        if (await jobExists(jobId)) log.warn({ jobId, failure }, 'embedding failed');
        await claim.fail(failure);
      }
    } finally {
      kept.release();
      running.delete(jobId);
      watch.changed(jobId);
    }
  }

  /** Runs an embed this node accepted, outside the slots; the runner's close waits for it. */
  function hold(claim: EmbedClaim): void {
    if (stopping.signal.aborted) {
      claim
        .release()
        .catch((err: unknown) =>
          log.error({ jobId: claim.jobId, err }, 'an embed accepted while stopping could not be given back'),
        );
      return;
    }
    const done: Promise<void> = runEmbed(claim)
      .catch((err: unknown) => log.error({ jobId: claim.jobId, err }, 'an embed could not be ended'))
      .finally(() => held.delete(done));
    held.add(done);
  }

  /** One of the runner's embed slots: takes the queue's next embed, runs it, and again, until the runner closes. */
  async function embedSlot(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const next = await queue.nextEmbed(stopping.signal);
        if (!next) return;
        if (next.action === 'run') {
          await runEmbed(next.claim);
          continue;
        }
        log.warn({ jobId: next.jobId, failure: next.error }, 'embedding failed');
        await store.collections.restEmbed(next.jobId, next.error, isoNow(clock));
        watch.changed(next.jobId);
      } catch (err) {
        log.error({ err }, 'the job runner could not take or finish an embed');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** One of the runner's slots: takes the queue's next job, reads it, and again, until the runner closes. */
  async function slot(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const next = await queue.next(stopping.signal);
        if (!next) return;
        // The queue failed the task already: its job must not stay processing for want of this write.
        if (next.action === 'fail') await fail(next.jobId, next.error, ['queued', 'processing']);
        else await run(next.claim);
      } catch (err) {
        // The database went away for a moment: the queue still holds the work; look again shortly.
        if (unavailable(err)) log.warn({ err: describeFailure(err) }, 'the job runner waits for the database');
        else log.error({ err }, 'the job runner could not take or finish a job');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  function start(): void {
    if (loops.length === 0 && !stopping.signal.aborted)
      loops = [
        ...Array.from({ length: slots }, () => slot()),
        ...Array.from({ length: embedSlots }, () => embedSlot()),
      ];
  }

  return {
    /** Starts reading the queue's jobs. */
    start,
    async enqueue(jobId: string): Promise<void> {
      await queue.enqueue(jobId);
    },
    /**
     * Queues the embed of a job just moved to `embedding`, inside that transaction. Call what it returns once
     * the transaction committed: it starts the embed here when this node is to run it.
     */
    async enqueueEmbed(jobId: string, order: EmbedOrder): Promise<() => void> {
      const claim = await queue.enqueueEmbed(jobId, order);
      return () => {
        if (claim) hold(claim);
      };
    },
    /** Stops a job's work (read or embed), queued or running, on this node or another; the caller records the new status. */
    async abort(jobId: string): Promise<void> {
      stop(jobId, 'cancel');
      await queue.cancel(jobId);
    },
    /**
     * Jobs left embedding by a previous run with no embed under way go back to rest; jobs left queued or
     * processing go back in the queue; then reading and embedding start.
     */
    async resumeUnfinished(): Promise<number> {
      const rested = await queue.restInterruptedEmbeds();
      if (rested > 0) log.info({ jobs: rested }, 'embeds interrupted by the last stop: embed those jobs again');
      const resumed = await queue.resumeUnfinished();
      if (resumed > 0) log.info({ jobs: resumed }, 'resuming unfinished jobs');
      start();
      return resumed;
    },
    async close(): Promise<void> {
      stopping.abort();
      for (const c of running.values()) c.abort('close');
      await Promise.allSettled([...loops, ...held]);
      await queue.close();
    },
  };
}
export type JobRunner = ReturnType<typeof createJobRunner>;

import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import {
  MAX_ATTEMPTS,
  type EmbedClaim,
  type EmbedOrder,
  type JobClaim,
  type JobQueue,
  type NextJob,
} from './job-queue.js';

/**
 * The desktop's queue: job ids in this process's memory, in arrival order, for the one process that owns
 * the data folder. A job is claimed on its row (queued -> processing, the attempt counted, before any
 * work); nothing else can take it, so its claim needs no renewing. A job found unfinished at start-up with
 * its attempts used up was being read when the server died, twice: it is failed (WORKER_DIED) instead of
 * taking the server down again.
 *
 * Embeds are not queued: each runs in this process as soon as it is accepted, beside the documents being
 * read (their batches share the pool), and ends with the process; at the next start its job goes back to
 * rest, to be embedded again.
 */
export function createMemoryJobQueue({ store, clock }: { store: Store; clock: Clock }): JobQueue {
  const ids: string[] = [];
  /** next() calls waiting for an id, first come first served. */
  const waiting: ((jobId: string | null) => void)[] = [];
  let closed = false;

  function give(jobId: string): void {
    const waiter = waiting.shift();
    if (waiter) waiter(jobId);
    else ids.push(jobId);
  }

  function nextId(signal: AbortSignal): Promise<string | null> {
    if (closed || signal.aborted) return Promise.resolve(null);
    const ready = ids.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const take = (jobId: string | null): void => {
        signal.removeEventListener('abort', aborted);
        resolve(jobId);
      };
      const aborted = (): void => {
        const i = waiting.indexOf(take);
        if (i >= 0) waiting.splice(i, 1);
        resolve(null);
      };
      waiting.push(take);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  const claimOf = (job: JobClaim['job']): JobClaim => ({
    job,
    heartbeat: async () => true,
    progress: async () => undefined,
    complete: async () => true,
    finish: async () => undefined,
    retry: async () => give(job.job_id),
    // The job keeps its status: the next start resumes it.
    release: () => store.jobs.uncountAttempt(job.job_id),
  });

  const embedClaimOf = (jobId: string, order: EmbedOrder): EmbedClaim => ({
    jobId,
    order,
    heartbeat: async () => true,
    progress: async () => undefined,
    complete: async () => true,
    fail: (failure) => store.collections.restEmbed(jobId, failure, isoNow(clock)),
    release: () => store.collections.restEmbed(jobId, null, isoNow(clock)),
  });
  /** nextEmbed() calls waiting for the queue to close: it never has an embed to give. */
  const idle = new Set<() => void>();

  return {
    heartbeatMs: 0,
    async enqueue(jobId) {
      give(jobId);
    },
    async next(signal): Promise<NextJob | null> {
      for (;;) {
        const jobId = await nextId(signal);
        if (jobId === null) return null;
        const job = await store.jobs.claim(jobId, isoNow(clock));
        if (!job) continue;
        if (job.attempts > MAX_ATTEMPTS) {
          const times = job.attempts - 1;
          return {
            action: 'fail',
            jobId,
            error: {
              code: 'WORKER_DIED',
              message: `the server stopped while reading this document ${times} times (it crashed or was killed); it is not tried again`,
            },
          };
        }
        return { action: 'run', claim: claimOf(job) };
      }
    },
    async cancel(jobId) {
      const i = ids.indexOf(jobId);
      if (i >= 0) ids.splice(i, 1);
    },
    // The runner aborts its own running jobs; no other process can cancel them.
    onCancel: () => undefined,
    /** Jobs left queued or processing by a previous run of the server go back in the queue. */
    async resumeUnfinished() {
      const found = await store.jobs.requeueUnfinished();
      for (const jobId of found) give(jobId);
      return found.length;
    },
    enqueueEmbed: async (jobId, order) => embedClaimOf(jobId, order),
    nextEmbed(signal) {
      if (closed || signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const done = (): void => {
          idle.delete(done);
          signal.removeEventListener('abort', done);
          resolve(null);
        };
        idle.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
    /** Nothing embeds before this process starts: every job left `embedding` was cut off by the last stop. */
    restInterruptedEmbeds: () => store.collections.restInterruptedEmbeds(isoNow(clock)),
    async close() {
      closed = true;
      ids.length = 0;
      for (const waiter of waiting.splice(0)) waiter(null);
      for (const done of [...idle]) done();
    },
  };
}

/**
 * A team server's job queue: every node's runner claims `extract` tasks from the task queue in PostgreSQL
 * (store/repos/task-queue.ts), one task per job (dedupe key `extract:<job_id>`).
 *
 * Lifetimes:
 * - A node holds a task for `leaseMs` at a time and renews it while its pool reads (the runner calls
 *   heartbeat every `heartbeatMs`, a third of the lease). A heartbeat answering false means the task was
 *   taken away: cancelled (on any node) or its lease ran out and another node claimed it; the runner then
 *   stops its pool task and drops what it read.
 * - The job's row follows its task: claiming the task moves the row to processing with the attempt counted;
 *   a node that dies leaves the row processing and the task running until its lease runs out; the next
 *   claimer takes both over. A task claimed more than MAX_ATTEMPTS times (its nodes died) is failed by the
 *   queue (WORKER_DIED) and its claimer fails the job.
 * - One listener per node (a connection of its own) wakes idle slots when tasks are queued and tells the
 *   runner of cancellations; a slow poll (`pollMs`) covers notifications lost while it reconnects and
 *   leases that ran out, which nobody announces.
 * - At start nothing held by a live node is taken: only tasks whose lease ran out, and jobs left
 *   unfinished without any queued or running task, go back in the queue.
 * - When the listener's connection comes back after the database went away (a restart), jobs left queued
 *   or processing without any task are looked for again, as at start: an upload whose row was written just
 *   before the database went, and whose task could not be, would otherwise wait until a node restarts.
 *   Every node looks; the dedupe key makes it one task. Tasks whose lease ran out are left to claims.
 */
import type { Store } from '../../store/store.js';
import type { TaskClaim, TaskListener, TaskQueue } from '../../store/repos/task-queue.js';
import { isoNow, type Clock } from '../clock.js';
import type { JobClaim, JobQueue, NextJob } from './job-queue.js';

export const EXTRACT_TASK = 'extract';
const KINDS = [EXTRACT_TASK] as const;
/** Finished tasks are kept this long for whoever looks at a job's history, then purged at a node's start. */
const KEEP_FINISHED_MS = 7 * 24 * 3600 * 1000;
/** Longest wait between two looks at the queue when no notification comes. */
const MAX_POLL_MS = 5000;

export interface SharedJobQueueDeps {
  store: Store;
  tasks: TaskQueue;
  clock: Clock;
  /** This node in the queue's records: host, pid and a random part. */
  workerId: string;
  leaseMs: number;
}

export async function createSharedJobQueue({ store, tasks, clock, workerId, leaseMs }: SharedJobQueueDeps): Promise<JobQueue> {
  const listener: TaskListener = await tasks.listen(KINDS);
  const pollMs = Math.min(leaseMs, MAX_POLL_MS);

  const claimOf = (job: JobClaim['job'], claim: TaskClaim): JobClaim => ({
    job,
    heartbeat: () => tasks.heartbeat(claim),
    progress: async (pagesDone, totalPages) => void (await tasks.progress(claim, { pages_done: pagesDone, total_pages: totalPages })),
    finish: async (failure) => void (await (failure ? tasks.fail(claim, failure) : tasks.complete(claim))),
    retry: async (failure) => void (await tasks.release(claim, failure)),
    async release() {
      // Another node may take it at once: the row shows it waiting, its attempt not counted.
      await store.jobs.update(job.job_id, { status: 'queued', pages_done: 0, updated_at: isoNow(clock) }, ['processing']);
      await store.jobs.uncountAttempt(job.job_id);
      await tasks.release(claim);
    },
  });

  /** The job's row for a task just claimed; null (the task is dropped) when the job was cancelled, deleted or finished meanwhile. */
  async function claimRow(jobId: string, claim: TaskClaim): Promise<JobClaim['job'] | null> {
    // A row left processing by a node that died is taken over as it stands.
    await store.jobs.update(jobId, { status: 'queued' }, ['processing']);
    const job = await store.jobs.claim(jobId, isoNow(clock));
    if (!job) await tasks.complete(claim);
    return job;
  }

  async function next(signal: AbortSignal): Promise<NextJob | null> {
    while (!signal.aborted) {
      const got = await tasks.claim(KINDS, workerId, leaseMs);
      if (got?.action === 'fail_job') return { action: 'fail', jobId: got.task.job_id, error: got.error };
      if (got) {
        const claim = { task_id: got.task.task_id, worker_id: workerId, attempts: got.task.attempts };
        const job = await claimRow(got.task.job_id, claim);
        // The task counts the attempts (the job's row may have been claimed under an earlier task).
        if (job) return { action: 'run', claim: claimOf({ ...job, attempts: got.task.attempts }, claim) };
        continue;
      }
      if ((await listener.wait(pollMs, signal)) === 'closed') return null;
    }
    return null;
  }

  /** A job left queued or processing with no live task: its task was never queued, or failed for good before the job was. */
  async function resumeJob(jobId: string): Promise<boolean> {
    const its = await tasks.tasksOfJob(jobId);
    if (its.some((t) => t.state === 'queued' || t.state === 'running')) return false;
    const last = its.at(-1);
    if (last?.state === 'failed' && last.error) {
      const at = isoNow(clock);
      await store.jobs.update(jobId, { status: 'failed', error_code: last.error.code, error_message: last.error.message, finished_at: at, updated_at: at }, ['queued', 'processing']);
      return false;
    }
    await tasks.enqueue({ kind: EXTRACT_TASK, job_id: jobId, dedupe_key: `extract:${jobId}` });
    return true;
  }

  /** Jobs left queued or processing without a live task go back in the queue; how many. */
  async function resumeOrphans(): Promise<number> {
    const unfinished: string[] = [];
    for (let skip = 0; ; skip += 100) {
      const page = await store.jobs.list({ statuses: ['queued', 'processing'], scope: null, skip, limit: 100 });
      unfinished.push(...page.items.map((j) => j.job_id));
      if (page.items.length < 100) break;
    }
    let resumed = 0;
    // Oldest first, as they came.
    for (const jobId of unfinished.reverse()) if (await resumeJob(jobId)) resumed++;
    return resumed;
  }
  // The database may go again before this is done: the next reconnection looks once more.
  listener.onReconnect(() => void resumeOrphans().catch(() => undefined));

  return {
    heartbeatMs: Math.max(50, Math.floor(leaseMs / 3)),
    async enqueue(jobId) {
      await tasks.enqueue({ kind: EXTRACT_TASK, job_id: jobId, dedupe_key: `extract:${jobId}` });
    },
    next,
    async cancel(jobId) {
      await tasks.cancel(jobId);
    },
    onCancel: (fn) => listener.onCancel(fn),
    async resumeUnfinished() {
      await tasks.reclaimExpired();
      await tasks.purgeFinished(KEEP_FINISHED_MS);
      return resumeOrphans();
    },
    close: () => listener.close(),
  };
}

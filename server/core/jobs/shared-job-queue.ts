/**
 * A team server's job queue: every node's runner claims `extract` tasks from the task queue in PostgreSQL
 * (store/repos/task-queue.ts), one task per job (dedupe key `extract:<job_id>`), and `embed` tasks, one per
 * embed of a job (`embed:<job_id>`), with the same leases and heartbeats.
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
 *
 * Embeds:
 * - The task is enqueued in the transaction that moves the job to `embedding`, and completed in the one
 *   that commits its vectors' rows and marks the job `indexed` (or failed in the one that puts the job back
 *   to rest): a job is `embedding` exactly while its embed task is queued or running.
 * - A node that dies mid-embed leaves its task to run out its lease; the next claimer embeds the job anew
 *   from its rows (what was not committed is done again, nothing twice). After MAX_ATTEMPTS claims the task
 *   fails (WORKER_DIED) and its claimer puts the job back to rest with that error.
 * - At start a job left `embedding` goes back to rest only when it has no queued or running embed task.
 * - An order carrying a remote provider's api_key is not written down: its task is enqueued already held by
 *   the node the request reached, which runs it with the key it keeps in memory. Should that node die, the
 *   next claimer cannot go on without the key and puts the job back to rest with WORKER_DIED.
 */
import type { Store } from '../../store/store.js';
import type { TaskClaim, TaskListener, TaskQueue, TaskView } from '../../store/repos/task-queue.js';
import { isoNow, type Clock } from '../clock.js';
import { EMBEDDING_PROVIDERS, type ProviderName } from '../embedding/providers.js';
import { AppError } from '../errors.js';
import type { EmbedClaim, EmbedOrder, JobClaim, JobFailure, JobQueue, NextEmbed, NextJob } from './job-queue.js';

export const EXTRACT_TASK = 'extract';
export const EMBED_TASK = 'embed';
/** What the reading slots claim; the embed slots claim EMBED_TASK; the node's listener hears of both. */
const READ_KINDS = [EXTRACT_TASK] as const;
const KINDS = [EXTRACT_TASK, EMBED_TASK] as const;
const live = (t: TaskView): boolean => t.state === 'queued' || t.state === 'running';

/** The order as its task keeps it: a key stays in the memory of the node holding the task. */
function payloadOf({ api_key, ...kept }: EmbedOrder): Record<string, unknown> {
  return api_key ? { ...kept, key_withheld: true } : { ...kept };
}

function orderOf(payload: Record<string, unknown>): EmbedOrder | null {
  const { collection, provider, model, base_url } = payload;
  if (
    typeof collection !== 'string' ||
    typeof model !== 'string' ||
    !(EMBEDDING_PROVIDERS as readonly unknown[]).includes(provider)
  )
    return null;
  if (base_url !== null && typeof base_url !== 'string') return null;
  return { collection, provider: provider as ProviderName, model, base_url };
}
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

export async function createSharedJobQueue({
  store,
  tasks,
  clock,
  workerId,
  leaseMs,
}: SharedJobQueueDeps): Promise<JobQueue> {
  const listener: TaskListener = await tasks.listen(KINDS);
  const pollMs = Math.min(leaseMs, MAX_POLL_MS);

  const claimOf = (job: JobClaim['job'], claim: TaskClaim): JobClaim => ({
    job,
    heartbeat: () => tasks.heartbeat(claim),
    progress: async (pagesDone, totalPages) =>
      void (await tasks.progress(claim, { pages_done: pagesDone, total_pages: totalPages })),
    complete: () => tasks.complete(claim),
    finish: async (failure) => void (await tasks.fail(claim, failure)),
    retry: async (failure) => void (await tasks.release(claim, failure)),
    async release() {
      // Another node may take it at once: the row shows it waiting, its attempt not counted.
      await store.jobs.update(job.job_id, { status: 'queued', pages_done: 0, updated_at: isoNow(clock) }, [
        'processing',
      ]);
      await store.jobs.uncountAttempt(job.job_id);
      await tasks.release(claim);
    },
  });

  const embedClaimOf = (jobId: string, order: EmbedOrder, claim: TaskClaim): EmbedClaim => ({
    jobId,
    order,
    heartbeat: () => tasks.heartbeat(claim),
    progress: async (embedded, total) =>
      void (await tasks.progress(claim, { chunks_embedded: embedded, chunks_total: total })),
    complete: () => tasks.complete(claim),
    async fail(failure) {
      // Only the holder rests the job: a claim taken away leaves it to the node that has it now.
      await store.transaction(async (tx) => {
        if (await tasks.fail(claim, failure)) await tx.collections.restEmbed(jobId, failure, isoNow(clock));
      });
    },
    async release() {
      if (!order.api_key) return void (await tasks.release(claim));
      // No other node could go on without the key: the job rests, to be embedded again, as on the desktop.
      const stopped = {
        code: 'INTERRUPTED',
        message: `node ${workerId}, embedding with the request's api_key, stopped; embed the job again`,
      };
      await store.transaction(async (tx) => {
        if (await tasks.fail(claim, stopped)) await tx.collections.restEmbed(jobId, null, isoNow(clock));
      });
    },
  });

  async function nextEmbed(signal: AbortSignal): Promise<NextEmbed | null> {
    while (!signal.aborted) {
      const got = await tasks.claim([EMBED_TASK], workerId, leaseMs);
      if (got?.action === 'fail_job') return { action: 'fail', jobId: got.task.job_id, error: got.error };
      if (got) {
        const { task } = got;
        const claim = { task_id: task.task_id, worker_id: workerId, attempts: task.attempts };
        const order = orderOf(task.payload);
        if (order && !task.payload.key_withheld)
          return { action: 'run', claim: embedClaimOf(task.job_id, order, claim) };
        const error: JobFailure = order
          ? {
              code: 'WORKER_DIED',
              message:
                "the node embedding this job with the request's api_key stopped; the key is never stored, so no other node can go on: embed the job again",
            }
          : {
              code: 'EMBEDDING_FAILED',
              message: `embed task ${task.task_id} carries no order this version of Lectern can read`,
            };
        await store.transaction(async (tx) => {
          if (await tasks.fail(claim, error)) await tx.collections.restEmbed(task.job_id, error, isoNow(clock));
        });
        return { action: 'fail', jobId: task.job_id, error };
      }
      if ((await listener.wait(pollMs, signal, [EMBED_TASK])) === 'closed') return null;
    }
    return null;
  }

  /** Every job in one of `statuses`, oldest first. */
  async function jobsIn(statuses: string[]): Promise<string[]> {
    const found: string[] = [];
    for (let skip = 0; ; skip += 100) {
      const page = await store.jobs.list({ statuses, scope: null, skip, limit: 100 });
      found.push(...page.items.map((j) => j.job_id));
      if (page.items.length < 100) break;
    }
    return found.reverse();
  }

  /** The job's row for a task just claimed; null (the task is dropped) when the job was cancelled, deleted or finished meanwhile. */
  async function claimRow(jobId: string, claim: TaskClaim): Promise<JobClaim['job'] | null> {
    // A row left processing by a node that died is taken over as it stands, in the same statement.
    const job = await store.jobs.claim(jobId, isoNow(clock), ['queued', 'processing']);
    if (!job) await tasks.complete(claim);
    return job;
  }

  async function next(signal: AbortSignal): Promise<NextJob | null> {
    while (!signal.aborted) {
      const got = await tasks.claim(READ_KINDS, workerId, leaseMs);
      if (got?.action === 'fail_job') return { action: 'fail', jobId: got.task.job_id, error: got.error };
      if (got) {
        const claim = { task_id: got.task.task_id, worker_id: workerId, attempts: got.task.attempts };
        const job = await claimRow(got.task.job_id, claim);
        // The task counts the attempts (the job's row may have been claimed under an earlier task).
        if (job) return { action: 'run', claim: claimOf({ ...job, attempts: got.task.attempts }, claim) };
        continue;
      }
      if ((await listener.wait(pollMs, signal, READ_KINDS)) === 'closed') return null;
    }
    return null;
  }

  /** A job left queued or processing with no live task: its task was never queued, or failed for good before the job was. */
  async function resumeJob(jobId: string): Promise<boolean> {
    const its = (await tasks.tasksOfJob(jobId)).filter((t) => t.kind === EXTRACT_TASK);
    if (its.some(live)) return false;
    const last = its.at(-1);
    if (last?.state === 'failed' && last.error) {
      const at = isoNow(clock);
      await store.jobs.update(
        jobId,
        {
          status: 'failed',
          error_code: last.error.code,
          error_message: last.error.message,
          finished_at: at,
          updated_at: at,
        },
        ['queued', 'processing'],
      );
      return false;
    }
    await tasks.enqueue({ kind: EXTRACT_TASK, job_id: jobId, dedupe_key: `extract:${jobId}` });
    return true;
  }

  /** Jobs left queued or processing without a live task go back in the queue; how many. */
  async function resumeOrphans(): Promise<number> {
    let resumed = 0;
    // Oldest first, as they came.
    for (const jobId of await jobsIn(['queued', 'processing'])) if (await resumeJob(jobId)) resumed++;
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
    async enqueueEmbed(jobId, order) {
      // With a key, held by this node from the start: see Embeds above.
      const holder = order.api_key ? { worker_id: workerId, lease_ms: leaseMs } : undefined;
      const { task, created } = await tasks.enqueue({
        kind: EMBED_TASK,
        job_id: jobId,
        payload: payloadOf(order),
        dedupe_key: `embed:${jobId}`,
        holder,
      });
      // Only while a delete of the job is under way (a job embedding has a live task; one at rest has none).
      if (!created)
        throw new AppError(
          'INVALID_STATE',
          `job ${jobId} could not start embedding: its last embed is still ending; try again`,
        );
      return holder
        ? embedClaimOf(jobId, order, { task_id: task.task_id, worker_id: workerId, attempts: task.attempts })
        : null;
    },
    nextEmbed,
    async restInterruptedEmbeds() {
      let rested = 0;
      for (const jobId of await jobsIn(['embedding'])) {
        const its = (await tasks.tasksOfJob(jobId)).filter((t) => t.kind === EMBED_TASK);
        if (its.some(live)) continue;
        // Its task failed for good before the job was put back to rest (the node doing so died): with its error.
        const last = its.at(-1);
        await store.collections.restEmbed(jobId, last?.state === 'failed' ? last.error : null, isoNow(clock));
        rested++;
      }
      return rested;
    },
    close: () => listener.close(),
  };
}

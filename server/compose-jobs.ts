import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from './core/clock.js';
import { createJobRunner, type Logger } from './core/jobs/job-runner.js';
import { createJobWatch } from './core/jobs/job-watch.js';
import { createMemoryJobQueue } from './core/jobs/memory-job-queue.js';
import type { JobQueue } from './core/jobs/job-queue.js';
import { createSharedJobQueue } from './core/jobs/shared-job-queue.js';
import type { TaskPool } from './core/pool.js';
import { createEmbedWork } from './core/indexing/embed-work.js';
import { createReindexRunner } from './core/indexing/reindex-runner.js';
import { createReindexWork } from './core/indexing/reindex-work.js';
import type { GuardedFetch } from './core/net/types.js';
import type { ModelManager } from './models/manager.js';
import type { Settings } from './schemas/settings.js';
import type { FileStore } from './store/file-store.js';
import type { OpenedStore } from './store/open-store.js';
import type { JobNotices } from './store/postgres/job-notices.js';

export interface JobsPartsDeps {
  opened: OpenedStore;
  settings: Pick<Settings, 'run_tasks' | 'task_lease_ms' | 'max_job_seconds' | 'embedding_model'>;
  pool: TaskPool;
  /** Where embeds find local models (the data folder's, shared by a team's nodes) and reach remote providers. */
  models: ModelManager;
  net: GuardedFetch;
  files: FileStore;
  clock: Clock;
  log: Logger;
}

/** This process in a team's queue records: readable by whoever looks at a task, unique by its random part. */
export const nodeId = (): string => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/**
 * The job runner and job changes as the store wants them: on the desktop, a queue in memory and changes
 * heard in this process; on a team server (store.team), the shared task queue, claimed by every node that
 * runs tasks (documents to read, jobs to embed and collections to reindex), and changes sent to and heard from every node.
 * `lectern serve` and `lectern worker` both compose their jobs here.
 */
export async function composeJobs({ opened, settings, pool, files, clock, log, models, net }: JobsPartsDeps) {
  const { store, team } = opened;
  let notices: JobNotices | undefined;
  const watch = createJobWatch({ relay: (jobId) => notices?.send(jobId) });
  const workerId = team ? nodeId() : undefined;
  let queue: JobQueue;
  if (team && workerId) {
    notices = await team.jobNotices(watch.heard, watch.missed);
    try {
      queue = await createSharedJobQueue({
        store,
        tasks: team.tasks,
        clock,
        workerId,
        leaseMs: settings.task_lease_ms,
      });
    } catch (err) {
      await notices.close();
      throw err;
    }
  } else {
    queue = createMemoryJobQueue({ store, clock });
  }
  const slots = team && !settings.run_tasks ? 0 : pool.threads;
  const embedWorkDeps = { store, pool, models, net, clock, log, defaultModel: settings.embedding_model };
  const embedder = createEmbedWork(embedWorkDeps);
  // Reindexes go through the same queue on a team server (tasks of their own kind), in this process on the desktop.
  const reindexWork = createReindexWork(embedWorkDeps);
  const reindexes = createReindexRunner({
    store,
    work: reindexWork,
    clock,
    log,
    team:
      team && workerId
        ? { tasks: team.tasks, workerId, leaseMs: settings.task_lease_ms, runTasks: settings.run_tasks }
        : undefined,
  });
  // The desktop embeds each job as it is accepted; a team node that runs tasks takes the queue's embeds too.
  const embedSlots = team && settings.run_tasks ? Math.max(1, pool.threads) : 0;
  const runner = createJobRunner({
    store,
    pool,
    files,
    clock,
    log,
    watch,
    queue,
    slots,
    maxJobSeconds: settings.max_job_seconds,
    embedder,
    embedSlots,
  });
  return {
    watch,
    runner,
    /** Where reindexes run (start it after the runner's resumeUnfinished), and their work. */
    reindexes,
    reindexWork,
    /** This node's name in the shared queue (team servers only). */
    workerId,
    /** Documents this node reads at once (0: it only queues them). */
    slots,
    /** Queued embeds this node runs at once (0: it runs only those it accepts on the desktop, or with a key). */
    embedSlots,
    async close(): Promise<void> {
      await reindexes.close();
      await runner.close();
      await notices?.close();
    },
  };
}

/**
 * Where reindexes run. The desktop runs each in this process as soon as it is accepted; a team server
 * queues a `reindex` task in the shared task queue (one per reindex, dedupe key `reindex:<collection>`),
 * in the transaction that records the reindex, and any node that runs tasks claims it.
 *
 * Lifetimes:
 * - A reindex's record stays `running` until it switches, is cancelled or fails; its partial index lives
 *   as long. Its vectors are written page by page, each page durable before the next (reindex-work.ts).
 * - Desktop: a stop aborts the run between pages and leaves the record running; the next start resumes it
 *   (keys already in the new index are not embedded again). The old index is never touched before the switch.
 * - Team: the claimer holds the task under a lease renewed every third of it; a node that dies leaves the
 *   task to run out its lease, and the next claimer resumes as above. A task claimed too often (its nodes
 *   died) fails, and with it the reindex. A node that stops releases its task for another node at once.
 * - Cancel (any node): the record is ended and the task cancelled; the node running it sees either at its
 *   next page, stops, and drops the partial index (so does the node that cancelled: whoever is last).
 * - At start every node drops the indexes ended reindexes left (`drop_index`): an old index whose switch
 *   happened just before a stop, or a partial one.
 */
import type { TaskClaim, TaskListener, TaskQueue, TaskView } from '../../store/repos/task-queue.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { describeFailure } from '../errors.js';
import type { Logger } from '../jobs/job-runner.js';
import type { ReindexWork } from './reindex-work.js';

export const REINDEX_TASK = 'reindex';
/** Longest wait between two looks at the queue when no notification comes. */
const MAX_POLL_MS = 5000;

type StopReason = 'cancel' | 'close' | 'lost';

export interface ReindexRunnerDeps {
  store: Store;
  work: ReindexWork;
  clock: Clock;
  log: Logger;
  /** A team server's queue, this node's name in it and its lease; absent on the desktop. */
  team?: { tasks: TaskQueue; workerId: string; leaseMs: number; runTasks: boolean };
}

export function createReindexRunner({ store, work, clock, log, team }: ReindexRunnerDeps) {
  const running = new Map<string, AbortController>();
  const stopping = new AbortController();
  const under = new Set<Promise<void>>();
  let listener: TaskListener | undefined;
  let loop: Promise<void> | undefined;

  async function fail(reindexId: string, err: unknown): Promise<void> {
    const failure = describeFailure(err);
    log.warn({ reindexId, failure }, 'reindex failed');
    await store.collections.endReindex(reindexId, 'failed', failure, isoNow(clock));
    await work.dropLeftIndex(reindexId);
  }

  /** Runs one reindex on this node; `claim` calls are the team task's (none on the desktop). */
  async function run(reindexId: string, claim?: TaskClaim): Promise<void> {
    const controller = new AbortController();
    running.set(reindexId, controller);
    const tasks = team?.tasks;
    const beat =
      claim && tasks && team
        ? setInterval(
            () =>
              void tasks.heartbeat(claim).then(
                (held) => held || controller.abort('lost'),
                (err: unknown) => log.warn({ reindexId, err: describeFailure(err) }, 'could not renew a reindex claim'),
              ),
            Math.max(50, Math.floor(team.leaseMs / 3)),
          )
        : undefined;
    const stillHeld = async () => !controller.signal.aborted && (!claim || !tasks || tasks.heartbeat(claim));
    try {
      const outcome = await work.run(reindexId, controller.signal, stillHeld);
      if (outcome === 'lost' || controller.signal.aborted) throw controller.signal.reason ?? 'lost';
      if (claim && tasks) await tasks.complete(claim);
    } catch (err) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === 'close') {
        // Resumed at the next start (desktop) or by another node at once (team).
        if (claim && tasks) await tasks.release(claim);
      } else if (reason === 'cancel' || reason === 'lost' || err === 'lost') {
        // Cancelled (whoever cancelled ended the record), or the claim is another node's now.
        const r = await store.collections.reindex(reindexId);
        if (r?.state !== 'running') await work.dropLeftIndex(reindexId);
      } else {
        await fail(reindexId, err);
        if (claim && tasks) await tasks.fail(claim, describeFailure(err));
      }
    } finally {
      clearInterval(beat);
      running.delete(reindexId);
    }
  }

  function runHere(reindexId: string, claim?: TaskClaim): void {
    const done: Promise<void> = run(reindexId, claim)
      .catch((err: unknown) => log.error({ reindexId, err }, 'a reindex could not be ended'))
      .finally(() => under.delete(done));
    under.add(done);
  }

  async function claimed(task: TaskView): Promise<void> {
    const claim = { task_id: task.task_id, worker_id: team!.workerId, attempts: task.attempts };
    await run(task.job_id, claim);
  }

  /** A team node's slot: claims the queue's reindex tasks one at a time until the runner closes. */
  async function claimLoop(tasks: TaskQueue, workerId: string, leaseMs: number, l: TaskListener): Promise<void> {
    const pollMs = Math.min(leaseMs, MAX_POLL_MS);
    while (!stopping.signal.aborted) {
      try {
        const got = await tasks.claim([REINDEX_TASK], workerId, leaseMs);
        if (got?.action === 'fail_job')
          await fail(got.task.job_id, { code: got.error.code, message: got.error.message });
        else if (got) await claimed(got.task);
        else if ((await l.wait(pollMs, stopping.signal)) === 'closed') return;
      } catch (err) {
        log.error({ err: describeFailure(err) }, 'the reindex runner could not take or finish a reindex');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  return {
    /**
     * Queues a reindex just recorded, inside that transaction (a team's task commits with the record). Call
     * what it returns once the transaction committed: on the desktop it starts the run here.
     */
    async enqueue(reindexId: string, collection: string): Promise<() => void> {
      if (!team) return () => runHere(reindexId);
      await team.tasks.enqueue({
        kind: REINDEX_TASK,
        job_id: reindexId,
        payload: { collection },
        dedupe_key: `reindex:${collection}`,
      });
      return () => undefined;
    },

    /** Stops a reindex's run wherever it is; the caller ended its record. */
    async cancel(reindexId: string): Promise<void> {
      running.get(reindexId)?.abort('cancel');
      await team?.tasks.cancel(reindexId);
    },

    /** Drops what ended reindexes left; resumes the desktop's unfinished reindexes, or claims the team's tasks. */
    async start(): Promise<void> {
      for (const left of await store.collections.indexesToDrop()) await work.dropLeftIndex(left.reindex_id);
      if (!team) {
        for (const r of await store.collections.runningReindexes()) {
          log.info({ reindexId: r.reindex_id, collection: r.collection }, 'resuming a reindex');
          runHere(r.reindex_id);
        }
        return;
      }
      if (!team.runTasks) return;
      listener = await team.tasks.listen([REINDEX_TASK]);
      listener.onCancel((id) => running.get(id)?.abort('cancel'));
      loop = claimLoop(team.tasks, team.workerId, team.leaseMs, listener);
    },

    async close(): Promise<void> {
      stopping.abort();
      for (const c of running.values()) c.abort('close');
      await Promise.allSettled([...under, ...(loop ? [loop] : [])]);
      await listener?.close();
    },
  };
}
export type ReindexRunner = ReturnType<typeof createReindexRunner>;

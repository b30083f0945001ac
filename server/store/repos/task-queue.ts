/**
 * The team server's shared task queue: the work of jobs (reading, OCR, chunking, embedding, training)
 * waiting for, or held under a lease by, one node's worker pool. Every node enqueues and claims; API nodes
 * read a job's tasks to show its progress. The PostgreSQL implementation (store/postgres/task-queue.ts)
 * writes down who holds what, for how long, and what happens when a process dies.
 *
 * A worker's calls on a task it holds (heartbeat, progress, complete, fail, release) name the claim they
 * come from (`TaskClaim`: task, worker and attempt) and answer false, changing nothing, once the task was
 * taken away from that claim (cancelled, or its lease ran out and another worker claimed it): the worker
 * then stops and drops what it made.
 */

export type TaskState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface TaskError {
  code: string;
  message: string;
}

/** A task as API nodes and workers see it. */
export interface TaskView {
  task_id: number;
  kind: string;
  job_id: string;
  payload: Record<string, unknown>;
  dedupe_key: string | null;
  state: TaskState;
  /** Claims so far, counted as a worker takes the task and before it starts its work. */
  attempts: number;
  worker_id: string | null;
  /** When the holder's lease runs out unless it heartbeats (running tasks only), ISO 8601. */
  lease_until: string | null;
  progress: Record<string, unknown> | null;
  /** Failed: why. Queued or running again: why the previous attempt ended. */
  error: TaskError | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface NewTask {
  kind: string;
  job_id: string;
  payload?: Record<string, unknown>;
  /** While a task with this key is queued or running, enqueueing another returns it instead (e.g. `extract:<job_id>`). */
  dedupe_key?: string;
  /**
   * Enqueued already claimed by this worker (running, attempt 1, under a lease of `lease_ms`): for work only
   * the enqueuing node can do, because what it needs is kept in that node's memory and nowhere else. No idle
   * worker is woken; another takes the task only once its lease ran out, as from any holder that died.
   */
  holder?: { worker_id: string; lease_ms: number };
}

/** Which claim a worker speaks for. */
export interface TaskClaim {
  task_id: number;
  worker_id: string;
  attempts: number;
}

/**
 * What claim() found: a task to run now, or a task given up instead: it was claimed more than
 * `maxAttempts` times (its workers died, or it was released with a failure each time), so it is failed
 * with `error` (WORKER_DIED after lease expiries) and the claimer fails its job with that error.
 */
export type Claimed = { action: 'run'; task: TaskView } | { action: 'fail_job'; task: TaskView; error: TaskError };

export interface TaskListener {
  /**
   * Resolves 'task' as soon as a task of the listener's kinds was enqueued (or came back to the queue) since
   * the last call, or 'timeout' after `timeoutMs`: the slow poll that covers a notification lost while the
   * listener's connection was down. Resolves 'closed' once the listener is closed or `signal` aborts.
   * With `kinds` (some of the listener's), only a task of those wakes it: a node's reading slots are not
   * woken, each to claim in vain, by an embed queued, nor its embed slots by a document.
   */
  wait(timeoutMs: number, signal?: AbortSignal, kinds?: readonly string[]): Promise<'task' | 'timeout' | 'closed'>;
  /** Calls `fn` with a job's id when its tasks are cancelled, on any node, so a worker stops at once. */
  onCancel(fn: (jobId: string) => void): void;
  /**
   * Calls `fn` each time the listener's connection is back after it dropped (the database restarted, or
   * the network between): what was sent or half-done meanwhile may want a look.
   */
  onReconnect(fn: () => void): void;
  close(): Promise<void>;
}

export interface TaskQueue {
  /** Queues a task, or returns the queued or running one with the same dedupe key (`created` false). Idle workers are woken. */
  enqueue(task: NewTask): Promise<{ task: TaskView; created: boolean }>;
  /**
   * Takes the oldest task of `kinds` that is queued or whose holder's lease ran out, for `workerId`, under a
   * lease of `leaseMs`; null when there is none. Two claimers never get the same task.
   */
  claim(kinds: readonly string[], workerId: string, leaseMs: number): Promise<Claimed | null>;
  /** Extends the claim's lease by the claim's lease length from now; false if the task was taken away. */
  heartbeat(claim: TaskClaim): Promise<boolean>;
  /** Records the task's progress (a small JSON) for API nodes to read; false if the task was taken away. */
  progress(claim: TaskClaim, progress: Record<string, unknown>): Promise<boolean>;
  complete(claim: TaskClaim): Promise<boolean>;
  /** Fails the task for good with `error`. */
  fail(claim: TaskClaim, error: TaskError): Promise<boolean>;
  /**
   * Puts the task back in the queue. Without `error` (the node is shutting down) the attempt does not count;
   * with one (its worker thread died or ran out of memory) it counts, and `error` is what the task fails
   * with once its attempts are used up.
   */
  release(claim: TaskClaim, error?: TaskError): Promise<boolean>;
  /** Cancels the job's queued and running tasks (holders are told through their listeners); how many. */
  cancel(jobId: string): Promise<number>;
  /**
   * Puts running tasks whose lease ran out back in the queue, with WORKER_DIED as why their attempt ended,
   * and wakes idle workers; how many. claim() takes such tasks without it: this makes them show as queued.
   */
  reclaimExpired(): Promise<number>;
  get(taskId: number): Promise<TaskView | null>;
  /** A job's tasks, oldest first: their states and progress, for API nodes. */
  tasksOfJob(jobId: string): Promise<TaskView[]>;
  /** Deletes done, failed and cancelled tasks finished more than `olderThanMs` ago; how many. */
  purgeFinished(olderThanMs: number): Promise<number>;
  /** Listens for new tasks of `kinds` and for cancellations, on a connection of its own. */
  listen(kinds: readonly string[]): Promise<TaskListener>;
}

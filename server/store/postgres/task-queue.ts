/**
 * The team server's task queue in PostgreSQL: `SELECT … FOR UPDATE SKIP LOCKED` with leases and heartbeats.
 *
 * Lifetimes:
 * - A task row lives from enqueue until purgeFinished() deletes it some time after it is done, failed or
 *   cancelled. Its state, attempts, lease and progress are the only record of who holds it: no database
 *   lock is held while a worker works, and no node keeps the truth in memory.
 * - A claim holds the task for its lease (`lease_ms`, measured on the database's clock, so nodes whose
 *   clocks disagree still agree). The holder heartbeats well within the lease; each heartbeat extends it by
 *   `lease_ms` from then. The claim ends when its holder completes, fails or releases the task, when the
 *   job's tasks are cancelled, or when the lease runs out and another worker claims the task (or
 *   reclaimExpired() puts it back in the queue). A heartbeat that comes late, before anyone took the task,
 *   still keeps it; every later call of a claim that lost the task answers false and changes nothing.
 * - A process that dies (SIGKILL, power, a lost network) loses nothing: its statement in flight rolls back
 *   with its connection, its leases run out, and its tasks are claimed elsewhere. Attempts are counted as a
 *   task is claimed, before any work, so a task whose workers died `maxAttempts` times is not run again: the
 *   next claim fails it (WORKER_DIED) and tells the claimer to fail its job.
 * - A task enqueued with a `holder` starts running under that holder's lease as if it had claimed it at
 *   once (attempt 1); nobody is woken for it, and from then on it is like any claimed task.
 * - The row lock a claim takes lasts one statement; SKIP LOCKED lets concurrent claimers pass over it.
 * - A listener holds one pooled connection for as long as it is open (LISTEN is per connection). If that
 *   connection drops, the listener reconnects every RECONNECT_MS and, once back, wakes its waiters, since
 *   notifications sent meanwhile were lost; until then workers find tasks by their slow poll. The connection
 *   is probed every `probeMs`, so a database that stops answering without closing it (frozen, cut off) is
 *   found out by the statement bound and dropped like any other. A listener's connection dies with its
 *   process, and with it the LISTEN.
 * - NOTIFY is sent in the statement that enqueues or frees a task, so inside a transaction it is delivered
 *   at commit, never before the task can be seen.
 */
import type pg from 'pg';
import { sql, type SQL } from 'drizzle-orm';
import type { Claimed, NewTask, TaskClaim, TaskListener, TaskQueue, TaskView } from '../repos/task-queue.js';
import type { PgContext } from './context.js';
import { keepProbing, releaseListening } from './bounded-waits.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './defaults.js';
import { guardUnavailable } from './unavailable.js';

/** Claims a task gets: the first and one more after its worker died, as the desktop's job runner allows. */
export const DEFAULT_MAX_ATTEMPTS = 2;
/** Wait between attempts to reopen a listener's dropped connection. */
const RECONNECT_MS = 1000;
const TASKS_CHANNEL = 'lectern_tasks';
const CANCEL_CHANNEL = 'lectern_task_cancel';

export interface PgTaskQueueDeps {
  ctx: PgContext;
  /** Where listeners take their own connection from. */
  pool: pg.Pool;
  maxAttempts?: number;
  /** How often a listener's connection is probed (bounded-waits.ts). */
  probeMs?: number;
}

const iso = (column: string) =>
  sql.raw(`to_char(t.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`);
/** Every column as the view wants it (timestamps as ISO text: drizzle's driver hands raw strings back otherwise). */
const COLUMNS = sql.join(
  [
    sql.raw(
      't.task_id, t.kind, t.job_id, t.payload, t.dedupe_key, t.state, t.attempts, t.worker_id, t.progress, t.error',
    ),
    ...['lease_until', 'created_at', 'updated_at', 'started_at', 'finished_at'].map(iso),
  ],
  sql.raw(', '),
);
/** The claim a worker speaks for, still holding the task. */
const held = (c: TaskClaim): SQL =>
  sql`t.task_id = ${c.task_id} AND t.worker_id = ${c.worker_id} AND t.attempts = ${c.attempts} AND t.state = 'running'`;
const json = (value: unknown): SQL => sql`${JSON.stringify(value)}::jsonb`;
/** Why an attempt ended when its holder's lease ran out. */
const diedError = sql`jsonb_build_object('code', 'WORKER_DIED', 'message', format('worker %s stopped renewing its lease (it died or lost the database)', t.worker_id))`;

/** A task's row as node-postgres reads it: the id, a bigint, comes as text. */
interface TaskRow extends Omit<TaskView, 'task_id'>, Record<string, unknown> {
  task_id: string | number;
}

const view = (r: TaskRow): TaskView => ({
  ...r,
  task_id: Number(r.task_id),
  lease_until: r.state === 'running' ? r.lease_until : null,
});

const checkLease = (leaseMs: number): void => {
  if (!Number.isInteger(leaseMs) || leaseMs <= 0)
    throw new RangeError(`a lease is a positive whole number of milliseconds, not ${leaseMs}`);
};

export function createPgTaskQueue({
  ctx,
  pool,
  maxAttempts = DEFAULT_MAX_ATTEMPTS,
  probeMs = DEFAULT_DATABASE_TIMEOUT_MS,
}: PgTaskQueueDeps): TaskQueue {
  const rows = async (query: SQL): Promise<TaskRow[]> => (await ctx.conn().execute<TaskRow>(query)).rows;
  const changed = async (query: SQL): Promise<boolean> => ((await ctx.conn().execute(query)).rowCount ?? 0) > 0;

  async function enqueue(task: NewTask): Promise<{ task: TaskView; created: boolean }> {
    const key = task.dedupe_key ?? null;
    const holder = task.holder;
    if (holder) checkLease(holder.lease_ms);
    const insert = holder
      ? sql`INSERT INTO tasks AS t (kind, job_id, payload, dedupe_key, state, attempts, worker_id, lease_ms, lease_until, started_at)
          VALUES (${task.kind}, ${task.job_id}, ${json(task.payload ?? {})}, ${key}, 'running', 1, ${holder.worker_id}::text, ${holder.lease_ms}::int,
            clock_timestamp() + ${holder.lease_ms}::int * interval '1 millisecond', clock_timestamp())`
      : sql`INSERT INTO tasks AS t (kind, job_id, payload, dedupe_key) VALUES (${task.kind}, ${task.job_id}, ${json(task.payload ?? {})}, ${key})`;
    // A held task wakes nobody: nobody else may take it.
    const notify = holder ? sql`` : sql`, pg_notify(${TASKS_CHANNEL}, t.kind)`;
    // A task with the key may finish between the insert that met it and the read: then insert again.
    for (;;) {
      const [made] = await rows(sql`
        WITH t AS (
          ${insert}
          ON CONFLICT (dedupe_key) WHERE state IN ('queued', 'running') DO NOTHING
          RETURNING *
        )
        SELECT ${COLUMNS}${notify} FROM t`);
      if (made) return { task: view(made), created: true };
      const [found] = await rows(
        sql`SELECT ${COLUMNS} FROM tasks t WHERE t.dedupe_key = ${key} AND t.state IN ('queued', 'running')`,
      );
      if (found) return { task: view(found), created: false };
    }
  }

  async function claim(kinds: readonly string[], workerId: string, leaseMs: number): Promise<Claimed | null> {
    checkLease(leaseMs);
    if (kinds.length === 0) return null;
    const exhausted = sql`next.attempt > ${maxAttempts}::int`;
    // What the task fails with once its attempts are used up: the last attempt's reason, in words that say so.
    const finalError = sql`jsonb_build_object(
      'code', coalesce(next.last->>'code', 'WORKER_DIED'),
      'message', CASE WHEN coalesce(next.last->>'code', 'WORKER_DIED') = 'WORKER_DIED'
        THEN format('its worker stopped while running it %s times (crashed or killed, its lease ran out); it is not tried again', next.attempt - 1)
        ELSE format('%s (attempt %s of %s)', next.last->>'message', next.attempt - 1, ${maxAttempts}::int) END)`;
    const [row] = await rows(sql`
      WITH next AS (
        SELECT t.task_id AS id, t.attempts + 1 AS attempt,
          CASE WHEN t.state = 'running' THEN ${diedError} ELSE t.error END AS last
        FROM tasks t
        WHERE t.kind IN (${sql.join(
          kinds.map((k) => sql`${k}`),
          sql`, `,
        )})
          AND (t.state = 'queued' OR (t.state = 'running' AND t.lease_until < clock_timestamp()))
        ORDER BY t.task_id
        LIMIT 1
        FOR UPDATE SKIP LOCKED
      )
      UPDATE tasks t SET
        attempts = next.attempt,
        state = CASE WHEN ${exhausted} THEN 'failed' ELSE 'running' END,
        worker_id = CASE WHEN ${exhausted} THEN NULL ELSE ${workerId}::text END,
        lease_ms = ${leaseMs}::int,
        lease_until = CASE WHEN ${exhausted} THEN NULL ELSE clock_timestamp() + ${leaseMs}::int * interval '1 millisecond' END,
        error = CASE WHEN ${exhausted} THEN ${finalError} ELSE next.last END,
        progress = NULL,
        started_at = CASE WHEN ${exhausted} THEN t.started_at ELSE clock_timestamp() END,
        finished_at = CASE WHEN ${exhausted} THEN clock_timestamp() ELSE NULL END,
        updated_at = clock_timestamp()
      FROM next
      WHERE t.task_id = next.id
      RETURNING ${COLUMNS}`);
    if (!row) return null;
    const task = view(row);
    return task.state === 'failed' ? { action: 'fail_job', task, error: task.error! } : { action: 'run', task };
  }

  /** Frees tasks matching `where` for another claim and wakes idle workers; how many. */
  const requeue = async (set: SQL, where: SQL): Promise<number> =>
    (
      await rows(sql`
        WITH t AS (
          UPDATE tasks t SET state = 'queued', worker_id = NULL, lease_until = NULL, progress = NULL, updated_at = clock_timestamp(), ${set}
          WHERE ${where}
          RETURNING t.kind
        )
        SELECT pg_notify(${TASKS_CHANNEL}, t.kind) FROM t`)
    ).length;

  // Guarded like the repositories: a lost connection is DATABASE_UNAVAILABLE to the queue's callers.
  return guardUnavailable<TaskQueue>({
    enqueue,
    claim,
    heartbeat: (c) =>
      changed(
        sql`UPDATE tasks t SET lease_until = clock_timestamp() + t.lease_ms * interval '1 millisecond' WHERE ${held(c)}`,
      ),
    progress: (c, progress) =>
      changed(sql`UPDATE tasks t SET progress = ${json(progress)}, updated_at = clock_timestamp() WHERE ${held(c)}`),
    complete: (c) =>
      changed(
        sql`UPDATE tasks t SET state = 'done', lease_until = NULL, error = NULL, finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE ${held(c)}`,
      ),
    fail: (c, error) =>
      changed(
        sql`UPDATE tasks t SET state = 'failed', lease_until = NULL, error = ${json({ code: error.code, message: error.message })}, finished_at = clock_timestamp(), updated_at = clock_timestamp() WHERE ${held(c)}`,
      ),
    release: async (c, error) =>
      (await requeue(
        error ? sql`error = ${json({ code: error.code, message: error.message })}` : sql`attempts = t.attempts - 1`,
        held(c),
      )) > 0,
    // One notification however many tasks: NOTIFY sends a payload once per transaction.
    cancel: async (jobId) =>
      (
        await rows(sql`
          WITH t AS (
            UPDATE tasks t SET state = 'cancelled', lease_until = NULL, finished_at = clock_timestamp(), updated_at = clock_timestamp()
            WHERE t.job_id = ${jobId} AND t.state IN ('queued', 'running')
            RETURNING t.job_id
          )
          SELECT pg_notify(${CANCEL_CHANNEL}, t.job_id) FROM t`)
      ).length,
    reclaimExpired: () =>
      requeue(sql`error = ${diedError}`, sql`t.state = 'running' AND t.lease_until < clock_timestamp()`),
    get: async (taskId) => {
      const [row] = await rows(sql`SELECT ${COLUMNS} FROM tasks t WHERE t.task_id = ${taskId}`);
      return row ? view(row) : null;
    },
    tasksOfJob: async (jobId) =>
      (await rows(sql`SELECT ${COLUMNS} FROM tasks t WHERE t.job_id = ${jobId} ORDER BY t.task_id`)).map(view),
    purgeFinished: async (olderThanMs) =>
      (
        await ctx
          .conn()
          .execute(
            sql`DELETE FROM tasks t WHERE t.state IN ('done', 'failed', 'cancelled') AND t.finished_at < clock_timestamp() - ${olderThanMs}::bigint * interval '1 millisecond'`,
          )
      ).rowCount ?? 0,
    listen: (kinds) => openListener(pool, kinds, probeMs),
  });
}

/** A listener on a pooled connection of its own (see Lifetimes above). */
async function openListener(pool: pg.Pool, kinds: readonly string[], probeMs: number): Promise<TaskListener> {
  const wanted = new Set(kinds);
  /** Each waiter, and the kinds it waits for. */
  const waiters = new Map<(outcome: 'task' | 'closed') => void, ReadonlySet<string>>();
  /** Kinds notified while nobody of theirs waited: the next wait for one returns at once. */
  const pending = new Set<string>();
  const cancelFns: ((jobId: string) => void)[] = [];
  const reconnectFns: (() => void)[] = [];
  let closed = false;
  let client: pg.PoolClient | null = null;
  let retry: NodeJS.Timeout | undefined;
  let unhook = (): void => undefined;
  let stopProbing = (): void => undefined;

  /** Wakes the waiters for `kind` (every waiter when none is given: closed, or notifications were lost). */
  const wake = (outcome: 'task' | 'closed', kind?: string): void => {
    const woken = [...waiters].filter(([, of]) => kind === undefined || of.has(kind));
    if (outcome === 'task')
      for (const k of kind === undefined ? wanted : [kind]) if (!woken.some(([, of]) => of.has(k))) pending.add(k);
    for (const [w] of woken) w(outcome);
  };
  const onNotification = (msg: pg.Notification): void => {
    if (msg.channel === TASKS_CHANNEL && msg.payload !== undefined && wanted.has(msg.payload))
      wake('task', msg.payload);
    if (msg.channel === CANCEL_CHANNEL && msg.payload) for (const fn of cancelFns) fn(msg.payload);
  };
  const lost = (c: pg.PoolClient, err: Error): void => {
    if (client !== c) return;
    client = null;
    stopProbing();
    c.release(err);
    if (!closed) retry = setTimeout(() => void connect(true), RECONNECT_MS);
  };
  async function connect(again: boolean): Promise<void> {
    let c: pg.PoolClient;
    try {
      c = await pool.connect();
    } catch (err) {
      if (!again) throw err;
      if (!closed) retry = setTimeout(() => void connect(true), RECONNECT_MS);
      return;
    }
    client = c;
    const onError = (err: Error): void => lost(c, err);
    const onEnd = (): void => lost(c, new Error('the listening connection ended'));
    c.on('notification', onNotification);
    c.on('error', onError);
    c.on('end', onEnd);
    stopProbing = keepProbing(c, probeMs);
    unhook = () => {
      stopProbing();
      c.off('notification', onNotification);
      c.off('error', onError);
      c.off('end', onEnd);
    };
    try {
      await c.query(`LISTEN ${TASKS_CHANNEL}`);
      await c.query(`LISTEN ${CANCEL_CHANNEL}`);
    } catch (err) {
      lost(c, err as Error);
      if (!again) throw err;
      return;
    }
    if (closed) return void (await drop());
    // Tasks enqueued while the connection was down sent notifications nobody heard.
    if (again) {
      wake('task');
      for (const fn of reconnectFns) fn();
    }
  }
  async function drop(): Promise<void> {
    const c = client;
    client = null;
    if (!c) return;
    unhook();
    await releaseListening(c, '*');
  }

  await connect(false);
  return {
    wait(timeoutMs, signal, kinds = [...wanted]) {
      if (closed || signal?.aborted) return Promise.resolve('closed');
      const of = new Set(kinds);
      const noted = [...of].filter((k) => pending.has(k));
      if (noted.length > 0) {
        for (const k of noted) pending.delete(k);
        return Promise.resolve('task');
      }
      return new Promise((resolve) => {
        const done = (outcome: 'task' | 'timeout' | 'closed'): void => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener('abort', aborted);
          resolve(outcome);
        };
        const aborted = (): void => done('closed');
        const timer = setTimeout(() => done('timeout'), timeoutMs);
        waiters.set(done, of);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    },
    onCancel(fn) {
      cancelFns.push(fn);
    },
    onReconnect(fn) {
      reconnectFns.push(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      wake('closed');
      await drop();
    },
  };
}

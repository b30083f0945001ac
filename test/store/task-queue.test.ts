import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type OpenedPostgres } from '../../server/store/postgres/connection.js';
import { createPgContext } from '../../server/store/postgres/context.js';
import { openJobNotices } from '../../server/store/postgres/job-notices.js';
import { createPgTaskQueue } from '../../server/store/postgres/task-queue.js';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Claimed, TaskClaim, TaskQueue, TaskView } from '../../server/store/repos/task-queue.js';
import { repoRoot } from '../helpers/app.js';
import { jsonLines } from '../helpers/json-lines.js';
import { freshDatabase as createDatabase, useTeamServices } from '../helpers/team-services.js';

// The team server's task queue on a real PostgreSQL started by scripts/team-services.sh. Each case gets a
// database of its own; each "node" is a pool of its own on it, as separate servers would have.
const services = useTeamServices();
const migrations = join(repoRoot, 'drizzle', 'pg');
let admin: pg.Pool;
let made = 0;
const opened: OpenedPostgres[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(() => {
  admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 2 });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const d of opened.splice(0)) await d.close();
});
afterAll(async () => {
  await admin?.end();
});

interface Node {
  queue: TaskQueue;
  pool: pg.Pool;
  database: OpenedPostgres;
}

/** A fresh, migrated database and a function that opens a node (a pool and a queue) on it. */
async function freshDatabase(): Promise<{ url: string; node: () => Promise<Node> }> {
  const name = `task_queue_${process.pid}_${++made}`;
  const url = await createDatabase(services().env.LECTERN_DATABASE_URL, name, admin);
  return {
    url,
    async node() {
      const database = await openPostgres(url, migrations, { max: 4 });
      opened.push(database);
      return {
        queue: createPgTaskQueue({ ctx: createPgContext(database.db), pool: database.pool }),
        pool: database.pool,
        database,
      };
    },
  };
}

/**
 * Two nodes on a fresh database: `worker` listening for tasks of `kinds` (its listener closed after the case) and
 * `api` beside it; `cancelled` holds the jobs whose cancellation the listener heard.
 */
async function listeningNodes(kinds: Parameters<TaskQueue['listen']>[0]) {
  const db = await freshDatabase();
  const [worker, api] = [await db.node(), await db.node()];
  const listener = await worker.queue.listen(kinds);
  closers.push(() => listener.close());
  const cancelled: string[] = [];
  listener.onCancel((jobId) => cancelled.push(jobId));
  return { db, worker, api, listener, cancelled };
}

const claimOf = (task: TaskView, workerId: string): TaskClaim => ({
  task_id: task.task_id,
  worker_id: workerId,
  attempts: task.attempts,
});
const ran = (c: Claimed | null): TaskView => {
  if (c?.action !== 'run') throw new Error(`expected a task to run, got ${JSON.stringify(c)}`);
  return c.task;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Claims until a claim returns something (a lease has to run out first); bounded so a defect fails, not hangs. */
async function claimWhenFree(queue: TaskQueue, kinds: string[], workerId: string, leaseMs: number): Promise<Claimed> {
  for (const until = Date.now() + 20_000; Date.now() < until; await sleep(50)) {
    const c = await queue.claim(kinds, workerId, leaseMs);
    if (c) return c;
  }
  throw new Error(`${workerId} found nothing to claim in 20 s`);
}

interface WorkerEvent {
  event: string;
  pid: number;
  task_id?: number;
  attempts?: number;
  ok?: boolean;
}

/**
 * test/helpers/task-worker.ts in a process of its own (through npx tsx, so the worker's pid is the one it
 * prints, not the child's). until() resolves the worker's first line of an event, or rejects if it exits.
 */
function spawnWorker(url: string, workerId: string, kind: string, leaseMs: number, mode: 'hold' | 'complete') {
  const child = spawn('npx', ['tsx', 'test/helpers/task-worker.ts', url, workerId, kind, String(leaseMs), mode], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = jsonLines<WorkerEvent>(child, workerId);
  const kill = (pid: number | undefined) => {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  closers.push(async () => {
    kill(out.lines[0]?.pid);
    kill(child.pid);
    await out.exited;
  });
  return {
    exited: out.exited,
    until: (event: string) => out.first((e) => e.event === event),
  };
}

describe('task queue', () => {
  it('runs a task: enqueue, claim with its attempt counted, progress seen from another node, complete', async () => {
    const db = await freshDatabase();
    const [worker, api] = [await db.node(), await db.node()];
    const { task, created } = await api.queue.enqueue({ kind: 'ocr', job_id: 'job-1', payload: { pages: [1, 2] } });
    expect(created).toBe(true);
    expect(task).toMatchObject({
      kind: 'ocr',
      job_id: 'job-1',
      payload: { pages: [1, 2] },
      state: 'queued',
      attempts: 0,
      worker_id: null,
      lease_until: null,
    });
    expect(await worker.queue.claim(['embed'], 'w1', 5000)).toBeNull();
    expect(await worker.queue.claim([], 'w1', 5000)).toBeNull();
    const running = ran(await worker.queue.claim(['embed', 'ocr'], 'w1', 5000));
    expect(running).toMatchObject({
      task_id: task.task_id,
      state: 'running',
      attempts: 1,
      worker_id: 'w1',
      error: null,
    });
    expect(Date.parse(running.lease_until!)).toBeGreaterThan(Date.parse(running.started_at!));
    expect(await worker.queue.claim(['ocr'], 'w2', 5000)).toBeNull();

    const claim = claimOf(running, 'w1');
    expect(await worker.queue.progress(claim, { pages_done: 1, total_pages: 2 })).toBe(true);
    expect((await api.queue.tasksOfJob('job-1')).map((t) => [t.state, t.progress])).toEqual([
      ['running', { pages_done: 1, total_pages: 2 }],
    ]);
    expect(await worker.queue.progress({ ...claim, worker_id: 'w2' }, { pages_done: 2 })).toBe(false);
    expect(await worker.queue.complete(claim)).toBe(true);
    expect(await api.queue.get(task.task_id)).toMatchObject({
      state: 'done',
      lease_until: null,
      progress: { pages_done: 1, total_pages: 2 },
    });
    expect(await worker.queue.heartbeat(claim)).toBe(false);
    expect(await worker.queue.complete(claim)).toBe(false);
    await expect(worker.queue.claim(['ocr'], 'w1', 0)).rejects.toThrow(/positive whole number/);
  });

  it('gives each of 200 tasks to exactly one of 4 concurrent claimers', async () => {
    const db = await freshDatabase();
    const nodes = await Promise.all([1, 2, 3, 4].map(() => db.node()));
    for (let i = 0; i < 200; i++)
      await nodes[i % 4]!.queue.enqueue({ kind: i % 2 ? 'chunk' : 'embed', job_id: `job-${i % 7}` });
    const got = await Promise.all(
      nodes.map(async ({ queue }, n) => {
        const mine: number[] = [];
        for (
          let c = await queue.claim(['chunk', 'embed'], `w${n}`, 60_000);
          c;
          c = await queue.claim(['chunk', 'embed'], `w${n}`, 60_000)
        ) {
          const task = ran(c);
          mine.push(task.task_id);
          expect(await queue.complete(claimOf(task, `w${n}`))).toBe(true);
        }
        return mine;
      }),
    );
    const all = got.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    for (const mine of got) expect(mine.length).toBeGreaterThan(0);
    const { rows } = await nodes[0]!.pool.query(`SELECT state, attempts, count(*)::int AS n FROM tasks GROUP BY 1, 2`);
    expect(rows).toEqual([{ state: 'done', attempts: 1, n: 200 }]);
  });

  it('takes a task back when its lease runs out: another worker claims it, the first one is told it lost it', async () => {
    const db = await freshDatabase();
    const [a, b] = [await db.node(), await db.node()];
    const { task } = await a.queue.enqueue({ kind: 'read', job_id: 'job-1' });
    const first = claimOf(ran(await a.queue.claim(['read'], 'w1', 1000)), 'w1');
    expect(await b.queue.claim(['read'], 'w2', 1000)).toBeNull();
    const second = ran(await claimWhenFree(b.queue, ['read'], 'w2', 5000));
    expect(second).toMatchObject({ task_id: task.task_id, worker_id: 'w2', attempts: 2, state: 'running' });
    expect(second.error).toMatchObject({
      code: 'WORKER_DIED',
      message: expect.stringContaining('worker w1 stopped renewing its lease'),
    });
    for (const call of [
      a.queue.heartbeat(first),
      a.queue.progress(first, { x: 1 }),
      a.queue.complete(first),
      a.queue.fail(first, { code: 'X', message: 'x' }),
      a.queue.release(first),
    ]) {
      expect(await call).toBe(false);
    }
    expect(await b.queue.complete(claimOf(second, 'w2'))).toBe(true);
    expect(await a.queue.get(task.task_id)).toMatchObject({ state: 'done', worker_id: 'w2', attempts: 2, error: null });
  });

  it('enqueues a task already held by its enqueuer: nobody else is woken or takes it until its lease runs out', async () => {
    const { worker: b, api: a, listener } = await listeningNodes(['embed']);
    const { task, created } = await a.queue.enqueue({
      kind: 'embed',
      job_id: 'job-1',
      dedupe_key: 'embed:job-1',
      holder: { worker_id: 'api-1', lease_ms: 1000 },
    });
    expect(created).toBe(true);
    expect(task).toMatchObject({
      state: 'running',
      worker_id: 'api-1',
      attempts: 1,
      lease_until: expect.any(String),
      started_at: expect.any(String),
    });
    expect(await listener.wait(300)).toBe('timeout');
    expect(await b.queue.claim(['embed'], 'w1', 5000)).toBeNull();
    // The key is taken while it runs.
    expect(await b.queue.enqueue({ kind: 'embed', job_id: 'job-1', dedupe_key: 'embed:job-1' })).toMatchObject({
      created: false,
      task: { task_id: task.task_id },
    });
    const held = claimOf(task, 'api-1');
    expect(await a.queue.heartbeat(held)).toBe(true);
    // Its holder stops renewing it: another worker takes it over, as from any holder that died.
    const taken = ran(await claimWhenFree(b.queue, ['embed'], 'w1', 5000));
    expect(taken).toMatchObject({
      task_id: task.task_id,
      worker_id: 'w1',
      attempts: 2,
      error: { code: 'WORKER_DIED' },
    });
    expect(await a.queue.complete(held)).toBe(false);
  });

  it('wakes a waiter only for the kinds it waits for, and keeps a notice of a kind nobody waited for', async () => {
    const { api: a, listener } = await listeningNodes(['read', 'embed']);
    let embedWoke = false;
    const embedWait = listener.wait(600_000, undefined, ['embed']).then((outcome) => {
      embedWoke = true;
      return outcome;
    });
    const readWait = listener.wait(600_000, undefined, ['read']);
    await a.queue.enqueue({ kind: 'read', job_id: 'job-1' });
    expect(await readWait).toBe('task');
    // Woken in the same breath as the read waiter, had it been.
    await new Promise((r) => setImmediate(r));
    expect(embedWoke).toBe(false);
    await a.queue.enqueue({ kind: 'embed', job_id: 'job-1' });
    expect(await embedWait).toBe('task');
    // Queued while nobody waited for it: the next wait for its kind returns at once, one for another kind does not.
    await a.queue.enqueue({ kind: 'read', job_id: 'job-2' });
    await expect.poll(() => listener.wait(0, undefined, ['read'])).toBe('task');
    expect(await listener.wait(100, undefined, ['embed'])).toBe('timeout');
  });

  it('reclaimExpired puts a task whose lease ran out back in the queue, shown as such, and wakes idle workers', async () => {
    const { worker: b, api: a, listener } = await listeningNodes(['read']);
    const { task } = await a.queue.enqueue({ kind: 'read', job_id: 'job-1' });
    expect(await listener.wait(600_000)).toBe('task');
    ran(await a.queue.claim(['read'], 'w1', 1000));
    expect(await b.queue.reclaimExpired()).toBe(0);
    await expect.poll(() => b.queue.reclaimExpired()).toBe(1);
    expect(await b.queue.get(task.task_id)).toMatchObject({
      state: 'queued',
      attempts: 1,
      worker_id: null,
      lease_until: null,
      error: { code: 'WORKER_DIED' },
    });
    expect(await listener.wait(600_000)).toBe('task');
    expect(ran(await b.queue.claim(['read'], 'w2', 5000))).toMatchObject({
      task_id: task.task_id,
      attempts: 2,
      worker_id: 'w2',
    });
  });

  it('keeps a task whose holder heartbeats past its first lease', async () => {
    const db = await freshDatabase();
    const [a, b] = [await db.node(), await db.node()];
    await a.queue.enqueue({ kind: 'embed', job_id: 'job-1' });
    const task = ran(await a.queue.claim(['embed'], 'w1', 1000));
    const claim = claimOf(task, 'w1');
    const pastFirstLease = async () =>
      (await a.pool.query("SELECT clock_timestamp() > $1::timestamptz + interval '200 ms' AS past", [task.lease_until]))
        .rows[0].past as boolean;
    while (!(await pastFirstLease())) {
      expect(await a.queue.heartbeat(claim)).toBe(true);
      await sleep(100);
    }
    expect(await b.queue.claim(['embed'], 'w2', 1000)).toBeNull();
    expect(await b.queue.reclaimExpired()).toBe(0);
    expect(await a.queue.heartbeat(claim)).toBe(true);
    const now = await a.queue.get(task.task_id);
    expect(now).toMatchObject({ state: 'running', worker_id: 'w1', attempts: 1 });
    expect(Date.parse(now!.lease_until!)).toBeGreaterThan(Date.parse(task.lease_until!));
  });

  it('releases a task: on shutdown without counting the attempt, after a thread failure counting it, failing with that reason when used up', async () => {
    const db = await freshDatabase();
    const { queue } = await db.node();
    const { task } = await queue.enqueue({ kind: 'ocr', job_id: 'job-1' });
    expect(await queue.release(claimOf(ran(await queue.claim(['ocr'], 'w1', 5000)), 'w1'))).toBe(true);
    expect(await queue.get(task.task_id)).toMatchObject({ state: 'queued', attempts: 0, worker_id: null });
    const oom = { code: 'OUT_OF_MEMORY', message: 'the worker thread ran out of memory' };
    for (const attempt of [1, 2]) {
      const t = ran(await queue.claim(['ocr'], 'w1', 5000));
      expect(t.attempts).toBe(attempt);
      expect(await queue.release(claimOf(t, 'w1'), oom)).toBe(true);
    }
    const given = await queue.claim(['ocr'], 'w2', 5000);
    expect(given).toMatchObject({
      action: 'fail_job',
      error: { code: 'OUT_OF_MEMORY', message: 'the worker thread ran out of memory (attempt 2 of 2)' },
    });
    expect(await queue.get(task.task_id)).toMatchObject({
      state: 'failed',
      attempts: 3,
      worker_id: null,
      error: given?.task.error,
    });
    expect(await queue.claim(['ocr'], 'w2', 5000)).toBeNull();
    await queue.enqueue({ kind: 'ocr', job_id: 'job-2' });
    const other = ran(await queue.claim(['ocr'], 'w2', 5000));
    expect(await queue.fail(claimOf(other, 'w2'), { code: 'UNREADABLE', message: 'not a PDF' })).toBe(true);
    expect(await queue.get(other.task_id)).toMatchObject({
      state: 'failed',
      error: { code: 'UNREADABLE', message: 'not a PDF' },
    });
  });

  it('cancels a job: its queued and running tasks stop, the holder is told at once on another node, other jobs go on', async () => {
    const { worker, api, cancelled } = await listeningNodes(['read']);
    await api.queue.enqueue({ kind: 'read', job_id: 'job-a' });
    await api.queue.enqueue({ kind: 'ocr', job_id: 'job-a' });
    const other = (await api.queue.enqueue({ kind: 'read', job_id: 'job-b' })).task;
    const held = claimOf(ran(await worker.queue.claim(['read'], 'w1', 5000)), 'w1');
    expect(await api.queue.cancel('job-a')).toBe(2);
    await expect.poll(() => cancelled).toEqual(['job-a']);
    expect(await worker.queue.heartbeat(held)).toBe(false);
    expect(await worker.queue.complete(held)).toBe(false);
    expect((await api.queue.tasksOfJob('job-a')).map((t) => t.state)).toEqual(['cancelled', 'cancelled']);
    expect(ran(await worker.queue.claim(['read', 'ocr'], 'w1', 5000)).task_id).toBe(other.task_id);
    expect(await worker.queue.claim(['read', 'ocr'], 'w1', 5000)).toBeNull();
    expect(await api.queue.cancel('job-a')).toBe(0);

    // Finished tasks are purged once old enough; the running one stays.
    expect(await api.queue.purgeFinished(600_000)).toBe(0);
    expect(await api.queue.purgeFinished(0)).toBe(2);
    expect((await api.queue.tasksOfJob('job-b')).map((t) => t.state)).toEqual(['running']);
  });

  it('queues one task per dedupe key while it is queued or running, also when nodes enqueue at once', async () => {
    const db = await freshDatabase();
    const nodes = await Promise.all([1, 2, 3].map(() => db.node()));
    const key = 'extract:job-1';
    const tries = await Promise.all(
      nodes.flatMap(({ queue }) => [1, 2].map(() => queue.enqueue({ kind: 'read', job_id: 'job-1', dedupe_key: key }))),
    );
    expect(tries.filter((t) => t.created)).toHaveLength(1);
    expect(new Set(tries.map((t) => t.task.task_id)).size).toBe(1);
    const { queue } = nodes[0]!;
    const first = ran(await queue.claim(['read'], 'w1', 5000));
    expect(await queue.enqueue({ kind: 'read', job_id: 'job-1', dedupe_key: key })).toMatchObject({
      created: false,
      task: { task_id: first.task_id, state: 'running' },
    });
    expect((await queue.enqueue({ kind: 'read', job_id: 'job-2', dedupe_key: 'extract:job-2' })).created).toBe(true);
    expect((await queue.enqueue({ kind: 'read', job_id: 'job-1' })).created).toBe(true);
    expect(await queue.complete(claimOf(first, 'w1'))).toBe(true);
    const again = await queue.enqueue({ kind: 'read', job_id: 'job-1', dedupe_key: key });
    expect(again.created).toBe(true);
    expect(again.task.task_id).not.toBe(first.task_id);
  });

  it('wakes an idle worker by NOTIFY, not by its poll; keeps a wake-up that came while it worked; sends it at commit', async () => {
    const { worker, api, listener, cancelled } = await listeningNodes(['ocr']);
    // Notifications reach a connection in commit order: once a cancellation sent after them has arrived, so have they.
    const marker = async (jobId: string) => {
      await api.queue.enqueue({ kind: 'train', job_id: jobId });
      expect(await api.queue.cancel(jobId)).toBe(1);
      await expect.poll(() => cancelled).toContain(jobId);
    };
    // The poll is ten minutes and the case's bound is 20 s: only a notification can end these waits.
    const POLL = 600_000;
    const idle = listener.wait(POLL);
    await api.queue.enqueue({ kind: 'ocr', job_id: 'job-1' });
    expect(await idle).toBe('task');
    expect(ran(await worker.queue.claim(['ocr'], 'w1', 5000)).kind).toBe('ocr');

    await api.queue.enqueue({ kind: 'embed', job_id: 'job-2' });
    await marker('marker-1');
    expect(await listener.wait(0)).toBe('timeout');

    await api.queue.enqueue({ kind: 'ocr', job_id: 'job-3' });
    await marker('marker-2');
    expect(await listener.wait(POLL)).toBe('task');

    const ctx = createPgContext(api.database.db);
    const inTx = createPgTaskQueue({ ctx, pool: api.pool });
    await ctx.transaction(async () => {
      await inTx.enqueue({ kind: 'ocr', job_id: 'job-4' });
      await marker('marker-3');
      expect(await listener.wait(0)).toBe('timeout');
    });
    expect(await listener.wait(POLL)).toBe('task');

    const stop = new AbortController();
    const stopped = listener.wait(POLL, stop.signal);
    stop.abort();
    expect(await stopped).toBe('closed');
    await listener.close();
    expect(await listener.wait(POLL)).toBe('closed');
  }, 20_000);

  it('a listener whose connection was cut reconnects, wakes its worker for what it may have missed, and hears again', async () => {
    const { db, api, listener, cancelled } = await listeningNodes(['ocr']);
    let reconnected = 0;
    listener.onReconnect(() => reconnected++);
    const listening = async () =>
      (
        await admin.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'`, [
          new URL(db.url).pathname.slice(1),
        ])
      ).rows.map((r) => r.pid as number);
    const [before] = await listening();
    expect(before).toBeDefined();
    expect((await admin.query('SELECT pg_terminate_backend($1) AS done', [before])).rows).toEqual([{ done: true }]);
    await api.queue.enqueue({ kind: 'ocr', job_id: 'job-1' });
    expect(await listener.wait(600_000)).toBe('task');
    await expect.poll(async () => (await listening()).filter((pid) => pid !== before)).toHaveLength(1);
    expect(await listening()).toHaveLength(1);
    expect(reconnected).toBe(1);
    await api.queue.enqueue({ kind: 'train', job_id: 'job-2' });
    await api.queue.cancel('job-2');
    await expect.poll(() => cancelled).toEqual(['job-2']);
  }, 20_000);

  it("job notices whose connection was cut reconnect, say notices may have been missed, and hear the other node's again", async () => {
    const db = await freshDatabase();
    const [a, b] = [await db.node(), await db.node()];
    const heard: string[] = [];
    let missed = 0;
    const onA = await openJobNotices(
      a.pool,
      (jobId) => heard.push(jobId),
      () => missed++,
    );
    const onB = await openJobNotices(b.pool, () => undefined);
    closers.push(
      () => onA.close(),
      () => onB.close(),
    );
    onB.send('job-1');
    await expect.poll(() => heard).toEqual(['job-1']);
    // A's listening connection is the one whose last statement was its LISTEN (B's sent a notice since).
    const { rows } = await admin.query(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN lectern_job_changed'`,
      [new URL(db.url).pathname.slice(1)],
    );
    expect(rows).toHaveLength(1);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await expect.poll(() => missed, { timeout: 10_000 }).toBe(1);
    onB.send('job-2');
    await expect.poll(() => heard).toEqual(['job-1', 'job-2']);
  }, 20_000);

  it('answers DATABASE_UNAVAILABLE (503), not a driver error, while its database cannot be reached', async () => {
    const db = await freshDatabase();
    const { queue } = await db.node();
    const url = new URL(db.url);
    // A port nothing listens on: the pool of a "node" there is refused at once, as during a restart.
    const probe = (await import('node:net')).createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    url.port = String((probe.address() as { port: number }).port);
    await new Promise((r) => probe.close(r));
    const pool = new pg.Pool({ connectionString: url.href, max: 1 });
    try {
      const unreachable = createPgTaskQueue({ ctx: createPgContext(drizzle(pool)), pool });
      await expect(unreachable.enqueue({ kind: 'ocr', job_id: 'job-1' })).rejects.toMatchObject({
        code: 'DATABASE_UNAVAILABLE',
        status: 503,
        details: { reason: 'ECONNREFUSED' },
      });
      await expect(unreachable.listen(['ocr'])).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
      // A constraint or a mistake is not an outage: it passes as it is.
      await expect(queue.claim(['ocr'], 'w', 0)).rejects.toBeInstanceOf(RangeError);
    } finally {
      await pool.end();
    }
  });

  it('gives the task of a worker process killed with SIGKILL mid-task to another worker once its lease runs out', async () => {
    const db = await freshDatabase();
    const { queue } = await db.node();
    const { task } = await queue.enqueue({ kind: 'ocr', job_id: 'job-1' });
    const first = spawnWorker(db.url, 'w1', 'ocr', 1500, 'hold');
    const claimed = await first.until('claimed');
    expect(claimed).toMatchObject({ task_id: task.task_id, attempts: 1 });
    await first.until('beat');
    process.kill(claimed.pid, 'SIGKILL');
    await first.exited;
    expect(await queue.get(task.task_id)).toMatchObject({
      state: 'running',
      worker_id: 'w1',
      progress: { worker: 'w1', step: 'started' },
    });

    const second = spawnWorker(db.url, 'w2', 'ocr', 1500, 'complete');
    expect(await second.until('claimed')).toMatchObject({ task_id: task.task_id, attempts: 2 });
    expect(await second.until('completed')).toMatchObject({ ok: true });
    expect(await queue.get(task.task_id)).toMatchObject({
      state: 'done',
      worker_id: 'w2',
      attempts: 2,
      progress: { worker: 'w2' },
    });
  }, 60_000);

  it('fails with WORKER_DIED a task that two killed worker processes held, instead of running it a third time', async () => {
    const db = await freshDatabase();
    const { queue } = await db.node();
    const workers = [spawnWorker(db.url, 'w1', 'read', 1500, 'hold'), spawnWorker(db.url, 'w2', 'read', 1500, 'hold')];
    await Promise.all(workers.map((w) => w.until('ready')));
    const { task } = await queue.enqueue({ kind: 'read', job_id: 'job-1', dedupe_key: 'extract:job-1' });
    const holder = await Promise.race(workers.map((w, i) => w.until('claimed').then((e) => ({ e, i }))));
    expect(holder.e.attempts).toBe(1);
    process.kill(holder.e.pid, 'SIGKILL');
    const other = workers[1 - holder.i]!;
    const next = await other.until('claimed');
    expect(next).toMatchObject({ task_id: task.task_id, attempts: 2 });
    process.kill(next.pid, 'SIGKILL');
    await Promise.all(workers.map((w) => w.exited));

    const given = await claimWhenFree(queue, ['read'], 'w3', 1500);
    expect(given).toMatchObject({ action: 'fail_job', task: { task_id: task.task_id, state: 'failed', attempts: 3 } });
    expect(given.action === 'fail_job' && given.error).toEqual({
      code: 'WORKER_DIED',
      message:
        'its worker stopped while running it 2 times (crashed or killed, its lease ran out); it is not tried again',
    });
    expect(await queue.get(task.task_id)).toMatchObject({
      state: 'failed',
      worker_id: null,
      lease_until: null,
      error: { code: 'WORKER_DIED' },
    });
    expect((await queue.enqueue({ kind: 'read', job_id: 'job-1', dedupe_key: 'extract:job-1' })).created).toBe(true);
  }, 60_000);
});

/**
 * A queue worker in a process of its own, for tests that kill one: `tsx test/helpers/task-worker.ts
 * <database url> <worker id> <kind> <lease ms> <hold|complete>`. It listens, then claims a task of `kind`
 * (woken by NOTIFY, or by its poll, which also puts tasks whose lease ran out back in the queue). `hold`
 * keeps the task, heartbeating three times a lease, until the process is killed; `complete` completes it
 * and exits. Each step is one JSON line on stdout: ready, claimed (with its pid, the process to kill),
 * beat, fail_job, lost, completed.
 *
 * Lifetimes: a pool of two connections (one for the listener) for the process's life; a claimed task for
 * as long as the process lives and heartbeats; killed, it leaves the task to run out its lease.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../drizzle/pg/schema.js';
import { createPgContext } from '../../server/store/postgres/context.js';
import { createPgTaskQueue } from '../../server/store/postgres/task-queue.js';

const [url, workerId, kind, leaseArg, mode] = process.argv.slice(2);
if (!url || !workerId || !kind || !leaseArg || (mode !== 'hold' && mode !== 'complete')) {
  process.stderr.write('usage: task-worker.ts <database url> <worker id> <kind> <lease ms> <hold|complete>\n');
  process.exit(2);
}
const leaseMs = Number(leaseArg);
const POLL_MS = 200;

const say = (event: string, fields: Record<string, unknown> = {}): void =>
  void process.stdout.write(`${JSON.stringify({ event, pid: process.pid, ...fields })}\n`);

const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on('error', () => undefined);
const queue = createPgTaskQueue({ ctx: createPgContext(drizzle(pool, { schema })), pool });
const listener = await queue.listen([kind]);
say('ready');

for (;;) {
  const claimed = await queue.claim([kind], workerId, leaseMs);
  if (!claimed) {
    if ((await listener.wait(POLL_MS)) === 'timeout') await queue.reclaimExpired();
    continue;
  }
  const { task } = claimed;
  if (claimed.action === 'fail_job') {
    say('fail_job', { task_id: task.task_id, error: claimed.error });
    continue;
  }
  const claim = { task_id: task.task_id, worker_id: workerId, attempts: task.attempts };
  say('claimed', { task_id: task.task_id, attempts: task.attempts });
  await queue.progress(claim, { worker: workerId, step: 'started' });
  if (mode === 'complete') {
    say('completed', { task_id: task.task_id, ok: await queue.complete(claim) });
    await listener.close();
    await pool.end();
    process.exit(0);
  }
  for (;;) {
    if (!(await queue.heartbeat(claim))) {
      say('lost', { task_id: task.task_id });
      process.exit(3);
    }
    say('beat', { task_id: task.task_id });
    await new Promise((r) => setTimeout(r, leaseMs / 3));
  }
}

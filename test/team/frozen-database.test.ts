/**
 * A team server whose PostgreSQL stops answering without closing anything: every process of the server
 * (postmaster and backends) stopped with SIGSTOP under two running API nodes, one reading a document, the
 * other followed over SSE, then let go with SIGCONT. Nodes are real processes of the built CLI on a real
 * PostgreSQL (scripts/team-services.sh), with database_timeout_ms small so the test is short:
 * - while frozen, calls that need the database answer 503 DATABASE_UNAVAILABLE with Retry-After within the
 *   bound, instead of waiting for ever; calls that do not need it answer as usual;
 * - the nodes' LISTEN connections notice and are opened again once the database answers;
 * - the document read meanwhile ends as an undisturbed read of it does, read once, and everything works.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, tempDir } from '../helpers/app.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { sseEvents } from '../helpers/sse.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { freezePostgres, type FrozenPostgres } from '../helpers/freeze-postgres.js';
import { blocksOf, teamNodes, type ApiNode, type TeamNodeOptions } from './team-node.js';

const services = useTeamServices();
const key = randomBytes(16).toString('hex');
/** database_timeout_ms of the nodes. */
const BOUND_MS = 2000;
/** How long the database stays frozen: long enough for a listener's probe (every BOUND_MS) to run out. */
const FROZEN_MS = 3 * BOUND_MS + 3000;
let frozen: FrozenPostgres | undefined;
let shared: Omit<TeamNodeOptions, 'kind' | 'args'>;
const team = teamNodes(() => shared);

afterAll(async () => {
  // Before the services stop (a frozen server would not): hooks run last-registered first.
  frozen?.thaw();
  await team.killAll();
});

/**
 * The nodes' listening connections, by backend pid: their last statement is a LISTEN, a probe, or a job
 * notice sent (the job channel's connection sends the node's own).
 */
const LISTENERS = `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
  AND (query LIKE 'LISTEN lectern%' OR query = 'SELECT 1' OR query = 'SELECT pg_notify($1, $2)')`;

/** Follows a job's events until the server ends the stream. */
async function follow(url: string): Promise<{ status: number; events: { event: string; data: any }[] }> {
  const res = await fetch(url, { headers: { 'x-api-key': key } });
  const events: { event: string; data: any }[] = [];
  if (res.status === 200 && res.body) for await (const e of sseEvents(res.body)) events.push(e);
  return { status: res.status, events };
}

interface Timed {
  call: string;
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  ms: number;
}

async function timed(call: string, send: () => Promise<Response>): Promise<Timed> {
  const t = performance.now();
  const res = await send();
  const body = (await res.json()) as { error?: { code: string } };
  return {
    call,
    status: res.status,
    code: body.error?.code,
    retryAfter: res.headers.get('retry-after'),
    ms: Math.round(performance.now() - t),
  };
}

describe('PostgreSQL frozen (SIGSTOP) under running nodes', () => {
  let p: ApiNode;
  let o: ApiNode;
  let db: pg.Pool;
  let pdf: Buffer;

  beforeAll(async () => {
    shared = {
      databaseUrl: await freshDatabase(services().env.LECTERN_DATABASE_URL, `frozen_${process.pid}`),
      dataDir: tempDir('lectern-frozen-'),
      key,
      // A lease that outlasts the freeze: the reader keeps its document through it.
      env: { LECTERN_DATABASE_TIMEOUT_MS: String(BOUND_MS), LECTERN_TASK_LEASE_MS: '20000' },
    };
    db = new pg.Pool({ connectionString: shared.databaseUrl, max: 2 });
    db.on('error', () => undefined);
    pdf = await makeLongPdf(160, 5);
    // P answers and reads; O only answers, so what it hears of the job comes over the job channel.
    p = await team.api('P');
    o = await team.api('O', ['--no-worker']);
  });
  afterAll(async () => {
    await db?.end();
  });

  it('answers 503 DATABASE_UNAVAILABLE within the bound while frozen; afterwards the listeners are back and the document read meanwhile is ready as if undisturbed', async () => {
    const note = await p.upload('note.md', enc('# Note\n\nRead before the freeze.'));
    const noteId = ((await note.json()) as { job_id: string }).job_id;
    expect((await p.waitFor(noteId)).status).toBe('ready_for_review');
    const upload = await p.upload('long.pdf', pdf);
    expect(upload.status).toBe(201);
    const jobId = ((await upload.json()) as { job_id: string }).job_id;
    const followed = follow(`${o.url}/jobs/${jobId}/events`);
    await expect
      .poll(
        async () =>
          (await db.query(`SELECT pages_done FROM jobs WHERE job_id = $1 AND status = 'processing'`, [jobId])).rows[0]
            ?.pages_done ?? 0,
        {
          timeout: 60_000,
          interval: 25,
        },
      )
      .toBeGreaterThan(0);
    const listenersBefore = (await db.query<{ pid: number }>(LISTENERS)).rows.map((r) => r.pid);
    // P listens for tasks and for job changes, O for job changes at least.
    expect(listenersBefore.length).toBeGreaterThanOrEqual(3);

    frozen = await freezePostgres(join(services().dir, 'pg'));
    const frozenAt = performance.now();
    const rounds: Timed[][] = [];
    try {
      expect(frozen.pids.length).toBeGreaterThan(listenersBefore.length);
      const round = () =>
        Promise.all([
          timed(`P GET /jobs/${jobId}`, () => p.call('GET', `/jobs/${jobId}`)),
          timed(`O GET /jobs/${noteId}`, () => o.call('GET', `/jobs/${noteId}`)),
          timed('O GET /jobs', () => o.call('GET', '/jobs')),
          timed(`O GET /jobs/${noteId}/blocks`, () => o.call('GET', `/jobs/${noteId}/blocks`)),
          timed(`P GET /jobs/${jobId}/events`, () => p.call('GET', `/jobs/${jobId}/events`)),
          timed('P POST /jobs', () => p.upload('during.md', enc('# During\n\nSent while the database was frozen.'))),
        ]);
      // At once, and again once every pooled connection of the moment had its bound run out.
      rounds.push(await round());
      await new Promise((r) => setTimeout(r, Math.max(0, 2 * BOUND_MS - (performance.now() - frozenAt))));
      rounds.push(await round());
      for (const answer of rounds.flat()) {
        expect({ ...answer, ms: undefined }).toEqual({
          call: answer.call,
          status: 503,
          code: 'DATABASE_UNAVAILABLE',
          retryAfter: '2',
          ms: undefined,
        });
        // Waited for the database (it neither refused nor answered), and no longer than its bound allows: one
        // wait for a pooled connection or a statement, and the request's own work.
        expect(answer.ms, answer.call).toBeGreaterThanOrEqual(BOUND_MS - 50);
        expect(answer.ms, answer.call).toBeLessThan(BOUND_MS + 1500);
      }
      const health = await timed('P GET /health', () => p.call('GET', '/health'));
      expect(health.status).toBe(200);
      expect(health.ms).toBeLessThan(1000);
      console.log(
        `frozen ${frozen.pids.length} processes; ms per call: ${rounds.map((r) => r.map((a) => a.ms).join(' ')).join(' | ')}; /health ${health.ms} ms`,
      );
      await new Promise((r) => setTimeout(r, Math.max(0, FROZEN_MS - (performance.now() - frozenAt))));
    } finally {
      frozen.thaw();
    }
    const thawedAt = performance.now();

    // Every listening connection of before the freeze noticed it and was replaced once the database answered.
    await expect
      .poll(
        async () => {
          const now = (await db.query<{ pid: number }>(LISTENERS)).rows.map((r) => r.pid);
          return {
            back: now.length >= listenersBefore.length,
            kept: now.filter((pid) => listenersBefore.includes(pid)),
          };
        },
        { timeout: 10 * BOUND_MS, interval: 100 },
      )
      .toEqual({ back: true, kept: [] });
    console.log(`listeners back ${Math.round(performance.now() - thawedAt)} ms after the thaw`);

    // The document read through the freeze ends ready, read once, followed to its end on O.
    const job = await p.waitFor(jobId, undefined, 180_000);
    expect({ status: job.status, error: job.error, pages: job.progress?.pages_done }).toEqual({
      status: 'ready_for_review',
      error: null,
      pages: 160,
    });
    const seen = await followed;
    expect(seen.status).toBe(200);
    expect(seen.events.filter((e) => e.event === 'error')).toEqual([]);
    expect(seen.events.at(-1)!.data).toMatchObject({ status: 'ready_for_review', progress: { pages_done: 160 } });
    const { rows: tasks } = await db.query<{ attempts: number; state: string }>(
      'SELECT attempts, state FROM tasks WHERE job_id = $1',
      [jobId],
    );
    expect(tasks).toEqual([{ attempts: 1, state: 'done' }]);
    expect(
      p.logs.filter(
        (l) => l.msg === 'stopped reading a job' || l.msg === 'left a job to its lease: the database is unavailable',
      ),
    ).toEqual([]);

    // Works again: an upload on O is claimed by P through the task channel's notification (the slow poll
    // would take seconds) and read; the same PDF read undisturbed gives the same blocks.
    const after = await o.upload('after.md', enc('# After\n\nUploaded once the database answered again.'));
    const afterJob = await o.waitFor(((await after.json()) as { job_id: string }).job_id);
    expect(afterJob.status).toBe('ready_for_review');
    expect(Date.parse(afterJob.started_at) - Date.parse(afterJob.created_at)).toBeLessThan(1500);
    const reference = await o.upload('reference.pdf', pdf);
    const referenceJob = await o.waitFor(((await reference.json()) as { job_id: string }).job_id, undefined, 180_000);
    expect(referenceJob.status).toBe('ready_for_review');
    const [read, undisturbed] = [await blocksOf(o, jobId), await blocksOf(o, referenceJob.job_id)];
    expect(read.length).toBeGreaterThan(160);
    expect(read).toEqual(undisturbed);

    // Nothing half-made by the uploads refused during the freeze, nobody died, and no answer was a 500.
    const known = new Set((await db.query<{ job_id: string }>('SELECT job_id FROM jobs')).rows.map((r) => r.job_id));
    expect(known.size).toBe(4);
    const folders = existsSync(join(shared.dataDir, 'files')) ? readdirSync(join(shared.dataDir, 'files')) : [];
    expect(folders.filter((f) => !known.has(f))).toEqual([]);
    for (const node of team.nodes) {
      expect(
        await Promise.race([node.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 10))]),
        node.name,
      ).toBe('running');
    }
    expect(team.nodes.flatMap((n) => n.logs.filter((l) => l.msg === 'unhandled error'))).toEqual([]);
  });
});

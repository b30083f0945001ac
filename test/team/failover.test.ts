/**
 * A team server losing a part of itself while it works, each node a real process of the built CLI on a
 * real PostgreSQL that this file owns (scripts/team-services.sh):
 * - an API node SIGKILLed while a client follows a job over Server-Sent Events: the client reconnects to
 *   another API node with Last-Event-ID and follows the job to its end;
 * - PostgreSQL stopped and started again while documents are read: every job ends as an undisturbed run's
 *   did, calls made meanwhile answer 503 DATABASE_UNAVAILABLE at once, the nodes stay up, and their LISTEN
 *   connections come back.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../server/store/postgres/connection.js';
import { createPostgresStore } from '../../server/store/postgres/postgres-store.js';
import { enc, repoRoot, tempDir } from '../helpers/app.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { sseEvents, sseRequest, type SseEvent } from '../helpers/sse.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { blocksOf, teamNodes, uploadJob, type ApiNode, type TeamNode, type TeamNodeOptions } from './team-node.js';

const services = useTeamServices();
const key = randomBytes(16).toString('hex');
const nodes: TeamNode[] = [];

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.kill('SIGKILL')));
});

/** A database of its own on the file's PostgreSQL, for one describe's nodes. */
const newDatabase = (name: string): Promise<string> => freshDatabase(services().env.LECTERN_DATABASE_URL, name);

/** Whether the node's process still runs. */
async function running(node: TeamNode): Promise<boolean> {
  return Promise.race([node.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 10))]);
}

const ORDER = ['queued', 'processing', 'ready_for_review'];

/** The job's events are a story that only moves forward: status never back, pages read never fewer. */
function expectForward(events: SseEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    const [before, after] = [events[i - 1]!.data, events[i]!.data];
    expect(ORDER.indexOf(after.status), `event ${i}: ${before.status} -> ${after.status}`).toBeGreaterThanOrEqual(
      ORDER.indexOf(before.status),
    );
    expect(
      after.progress.pages_done,
      `event ${i}: pages ${before.progress.pages_done} -> ${after.progress.pages_done}`,
    ).toBeGreaterThanOrEqual(before.progress.pages_done);
  }
}

/**
 * Follows a job's event stream as a client does, until the server ends it or the connection breaks (its
 * node died); `onEvent` sees each event as it comes.
 */
async function follow(url: string, headers: Record<string, string>, onEvent: (e: SseEvent) => void = () => undefined) {
  const started = performance.now();
  const res = await fetch(url, { headers: { 'x-api-key': key, ...headers } });
  const events: SseEvent[] = [];
  let ended: 'closed' | 'broken' = 'closed';
  if (res.status === 200 && res.body) {
    try {
      for await (const e of sseEvents(res.body)) {
        const event = { ...e, at: performance.now() - started };
        events.push(event);
        onEvent(event);
      }
    } catch {
      ended = 'broken';
    }
  }
  return { status: res.status, events, ended };
}

describe('an API node killed while a client follows a job over SSE', () => {
  let a: ApiNode;
  let b: ApiNode;
  let shared: Omit<TeamNodeOptions, 'kind' | 'args'>;
  let longPdf: Buffer;
  let jobId: string;

  beforeAll(async () => {
    shared = {
      databaseUrl: await newDatabase(`failover_sse_${process.pid}`),
      dataDir: tempDir('lectern-failover-sse-'),
      key,
    };
    longPdf = await makeLongPdf(240);
    const { api, worker } = teamNodes(() => shared, nodes);
    // A migrates; B and the worker find the database ready. Only the worker reads documents, so killing A
    // takes nothing from the reading.
    a = await api('A', ['--no-worker']);
    [b] = await Promise.all([api('B', ['--no-worker']), worker('w')]);
  });

  it('follows the job on node B with Last-Event-ID after node A is killed mid-stream, to ready_for_review with the blocks of an undisturbed run', async () => {
    jobId = await uploadJob(a, 'followed.pdf', longPdf);
    const onA = await follow(`${a.url}/jobs/${jobId}/events`, {}, (e) => {
      // Killed while the document is being read, with pages to go.
      if (e.data.status === 'processing' && e.data.progress.pages_done >= 10 && e.data.progress.pages_done < 200)
        void a.kill('SIGKILL');
    });
    expect(onA.status).toBe(200);
    expect(onA.ended).toBe('broken');
    const lastOnA = onA.events.at(-1)!;
    expect(lastOnA.data.status).toBe('processing');
    // Every event names its state; consecutive events differ, so do their ids.
    expect(onA.events.every((e) => e.event === 'job' && typeof e.id === 'string' && e.id.length > 0)).toBe(true);
    expect(new Set(onA.events.map((e) => e.id)).size).toBe(onA.events.length);

    const onB = await follow(`${b.url}/jobs/${jobId}/events`, { 'last-event-id': lastOnA.id! });
    expect(onB.status).toBe(200);
    expect(onB.ended).toBe('closed');
    expect(onB.events.length).toBeGreaterThan(0);
    // B starts with the job as it is now, never with the state the client already had.
    expect(onB.events[0]!.id).not.toBe(lastOnA.id);
    expect(onB.events[0]!.data.progress.pages_done).toBeGreaterThanOrEqual(lastOnA.data.progress.pages_done);
    const all = [...onA.events, ...onB.events];
    expect(all.every((e) => e.event === 'job' && e.data.job_id === jobId)).toBe(true);
    expectForward(all);
    const last = all.at(-1)!.data;
    expect(last).toMatchObject({
      status: 'ready_for_review',
      error: null,
      progress: { pages_done: 240, total_pages: 240 },
    });

    // The same document read again, undisturbed: the same blocks.
    const reference = await uploadJob(b, 'reference.pdf', longPdf);
    expect((await b.waitFor(reference, undefined, 180_000)).status).toBe('ready_for_review');
    const [followed, undisturbed] = [await blocksOf(b, jobId), await blocksOf(b, reference)];
    expect(followed.length).toBeGreaterThan(240);
    expect(followed).toEqual(undisturbed);
  });

  it('names a state by the same id on every node; resuming with the id of a finished job answers 204, with an older one the job as it is', async () => {
    const c = await teamNodes(() => shared, nodes).api('C', ['--no-worker']);
    const [onB, onC] = (await Promise.all(
      [b, c].map((n) => sseRequest(`${n.url}/jobs/${jobId}/events`, { headers: { 'x-api-key': key } })),
    )) as [Awaited<ReturnType<typeof sseRequest>>, Awaited<ReturnType<typeof sseRequest>>];
    expect(onB.events).toHaveLength(1);
    expect(onC.events).toHaveLength(1);
    expect(onB.events[0]!.data.status).toBe('ready_for_review');
    expect(onC.events[0]!.id).toBe(onB.events[0]!.id);
    expect(onC.events[0]!.data).toEqual(onB.events[0]!.data);

    for (const node of [b, c]) {
      // The client has the end already: nothing more to send, and an EventSource stops reconnecting.
      const done = await node.call('GET', `/jobs/${jobId}/events`, {
        headers: { 'last-event-id': onB.events[0]!.id! },
      });
      expect(done.status).toBe(204);
      expect(await done.text()).toBe('');
      // An id of an earlier state (or one the server never sent): the job as it is, then the end.
      const behind = await sseRequest(`${node.url}/jobs/${jobId}/events`, {
        headers: { 'x-api-key': key, 'last-event-id': 'not-a-state-of-this-job' },
      });
      expect(behind.res.status).toBe(200);
      expect(behind.events.map((e) => [e.id, e.data.status])).toEqual([[onB.events[0]!.id, 'ready_for_review']]);
    }
  });
});

describe('PostgreSQL restarted while documents are read', () => {
  let p: ApiNode;
  let o: ApiNode;
  let w: TeamNode;
  let shared: Omit<TeamNodeOptions, 'kind' | 'args'>;
  let db: pg.Pool;
  let docs: [string, Uint8Array][];
  /** The undisturbed run: each document's job status, error code and blocks. */
  const reference = new Map<string, { status: string; error: string | null; blocks: unknown[] }>();

  beforeAll(async () => {
    shared = {
      databaseUrl: await newDatabase(`failover_pg_${process.pid}`),
      dataDir: tempDir('lectern-failover-pg-'),
      key,
      // The default lease is 30 s; 15 s outlasts the restart (the reader keeps its documents through it)
      // and keeps the queue's slow poll (at most 5 s) far slower than a notification.
      env: { LECTERN_TASK_LEASE_MS: '15000' },
    };
    db = new pg.Pool({ connectionString: shared.databaseUrl, max: 2 });
    // A node whose pooled connection the restart ends must not hear of it as an unhandled error.
    db.on('error', () => undefined);
    const pdf = await makeLongPdf(200, 3);
    docs = [
      ['one.pdf', await makeLongPdf(160, 1)],
      ['two.pdf', await makeLongPdf(120, 2)],
      ['notes.md', enc('# Notes\n\nA short document among long ones.\n\n## Part two\n\nIts second section.')],
      ['three.pdf', pdf],
      // Starts like a PDF and breaks off: fails PDF_INVALID, with or without a restart.
      ['broken.pdf', pdf.subarray(0, 3000)],
      ['four.pdf', await makeLongPdf(140, 4)],
    ];
    const { api, worker } = teamNodes(() => shared, nodes);
    // P answers and reads; w reads; O only answers, so whatever it hears of a job comes from another node.
    p = await api('P');
    [o, w] = await Promise.all([api('O', ['--no-worker']), worker('w')]);

    const ids = [];
    for (const [name, data] of docs) ids.push(await uploadJob(p, name, data));
    for (const [i, jobId] of ids.entries()) {
      const job = await p.waitFor(jobId, undefined, 180_000);
      reference.set(docs[i]![0], {
        status: job.status,
        error: job.error?.code ?? null,
        blocks: await blocksOf(p, jobId),
      });
    }
    expect([...reference.values()].map((r) => r.status)).toEqual([
      'ready_for_review',
      'ready_for_review',
      'ready_for_review',
      'ready_for_review',
      'failed',
      'ready_for_review',
    ]);
  });
  afterAll(async () => {
    await db?.end();
  });

  it('ends every job as the undisturbed run did; calls during the outage answer 503 DATABASE_UNAVAILABLE at once; the nodes stay up', async () => {
    const ids: string[] = [];
    for (const [name, data] of docs) ids.push(await uploadJob(p, name, data));
    // A follower on O (which reads nothing) through the whole restart.
    const followed = follow(`${o.url}/jobs/${ids[3]}/events`, {});
    // Stopped while documents are being read and others wait.
    await expect
      .poll(
        async () =>
          (await db.query(`SELECT count(*)::int AS n FROM jobs WHERE status = 'processing' AND pages_done > 0`)).rows[0]
            .n,
        { timeout: 60_000, interval: 25 },
      )
      .toBeGreaterThan(0);
    // Mid-ingest: documents read and waiting as the database goes.
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'processing')`)).rows[0].n,
    ).toBeGreaterThanOrEqual(2);
    const url = services().env.LECTERN_DATABASE_URL;
    const stoppedAt = performance.now();
    await services().stopPostgres();

    // Every call that needs the database answers at once with a code, on either API node; those that do
    // not need it answer as usual.
    const calls: [ApiNode, string, string, (() => Promise<Response>)?][] = [
      [p, 'GET', `/jobs/${ids[0]}`],
      [o, 'GET', `/jobs/${ids[1]}`],
      [o, 'GET', '/jobs'],
      [p, 'GET', `/jobs/${ids[3]}/events`],
      [o, 'GET', `/jobs/${ids[0]}/blocks`],
      [p, 'POST', '/jobs', () => p.upload('during.md', enc('# During\n\nSent while the database was away.'))],
      [o, 'POST', `/jobs/${ids[2]}/cancel`],
    ];
    for (const [node, method, path, send] of calls) {
      const t = performance.now();
      const res = await (send ? send() : node.call(method, path));
      const body = (await res.json()) as { error?: { code: string } };
      expect({ call: `${node.name} ${method} ${path}`, status: res.status, code: body.error?.code }).toEqual({
        call: `${node.name} ${method} ${path}`,
        status: 503,
        code: 'DATABASE_UNAVAILABLE',
      });
      expect(res.headers.get('retry-after')).toBe('2');
      expect(performance.now() - t).toBeLessThan(5000);
    }
    expect((await p.call('GET', '/health')).status).toBe(200);

    // Down for a few seconds, as a restart of a real server is, then up on the same port and data.
    await new Promise((r) => setTimeout(r, Math.max(0, 4000 - (performance.now() - stoppedAt))));
    const after = await services().start();
    expect(after.LECTERN_DATABASE_URL).toBe(url);

    const ended = await Promise.all(ids.map((id) => p.waitFor(id, undefined, 180_000)));
    for (const [i, job] of ended.entries()) {
      const [name] = docs[i]!;
      const want = reference.get(name)!;
      expect({ name, status: job.status, error: job.error?.code ?? null }).toEqual({
        name,
        status: want.status,
        error: want.error,
      });
      expect(await blocksOf(p, job.job_id), name).toEqual(want.blocks);
    }
    // Nothing left half-done: no job waiting or read, no task held, no upload of the outage half-made.
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM jobs WHERE status IN ('queued', 'processing')`)).rows[0].n,
    ).toBe(0);
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM tasks WHERE state IN ('queued', 'running')`)).rows[0].n,
    ).toBe(0);
    const known = new Set((await db.query<{ job_id: string }>('SELECT job_id FROM jobs')).rows.map((r) => r.job_id));
    const folders = existsSync(join(shared.dataDir, 'files')) ? readdirSync(join(shared.dataDir, 'files')) : [];
    expect(folders.filter((f) => !known.has(f))).toEqual([]);

    // The readers kept their documents through the outage (the lease outlasted it): none was taken away
    // from them or read twice, and none was failed for the database's sake.
    const readers = [p, w];
    expect(
      readers.flatMap((n) =>
        n.logs.filter(
          (l) => l.msg === 'stopped reading a job' || l.msg === 'left a job to its lease: the database is unavailable',
        ),
      ),
    ).toEqual([]);
    const { rows: tasks } = await db.query<{ attempts: number }>(`SELECT attempts FROM tasks WHERE job_id = ANY($1)`, [
      ids,
    ]);
    expect(tasks.map((t) => t.attempts)).toEqual(ids.map(() => 1));

    // The follower on O waited out the outage and saw the job to its end.
    const seen = await followed;
    expect(seen.status).toBe(200);
    expect(seen.events.filter((e) => e.event === 'error')).toEqual([]);
    expectForward(seen.events);
    expect(seen.events.at(-1)!.data).toMatchObject({ status: 'ready_for_review', progress: { pages_done: 200 } });

    // Up all along, and no answer was a 500.
    for (const node of [p, o, w]) expect(await running(node), node.name).toBe(true);
    expect([p, o].flatMap((n) => n.logs.filter((l) => l.msg === 'unhandled error'))).toEqual([]);
  });

  it('hears notifications again after the restart: an upload is claimed at once, and O hears pages read elsewhere as they are read', async () => {
    // Each upload is claimed through the task channel's notification, within a second; the queue's slow
    // poll (every 5 s) would take seconds.
    for (const n of [1, 2, 3]) {
      const jobId = await uploadJob(o, `after-${n}.md`, enc(`# After ${n}\n\nUploaded once the database was back.`));
      const job = await o.waitFor(jobId);
      expect(job.status).toBe('ready_for_review');
      expect(Date.parse(job.started_at) - Date.parse(job.created_at), `claimed ${n}`).toBeLessThan(1500);
    }
    // O reads nothing: pages read on P or w reach it through the job channel as they are read, several a
    // second; its own beat alone would tell it once a second.
    const jobId = await uploadJob(o, 'heard.pdf', await makeLongPdf(600, 9));
    const seen = await follow(`${o.url}/jobs/${jobId}/events`, {});
    expect(seen.events.at(-1)!.data.status).toBe('ready_for_review');
    const reading = seen.events.filter((e) => e.data.status === 'processing');
    const gaps = reading.slice(1).map((e, i) => Math.round(e.at - reading[i]!.at));
    expect(gaps.filter((g) => g < 500).length, `ms between events: ${gaps.join(' ')}`).toBeGreaterThanOrEqual(3);
  });
});

describe('a pooled connection the database ends in the middle of a transaction', () => {
  it('fails that transaction with DATABASE_UNAVAILABLE; the process lives on and the pool opens another', async () => {
    const url = await newDatabase(`failover_tx_${process.pid}`);
    const opened = await openPostgres(url, join(repoRoot, 'drizzle', 'pg'));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const store = createPostgresStore(opened);
      const inTransaction = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`;
      const transaction = store.transaction(async (tx) => {
        await tx.jobs.get('no-such-job');
        // Between two statements, with no query running on it, its connection is ended (as a restart does):
        // node-postgres emits 'error' on a client the pool has handed out, which threw when nothing listened.
        await new Promise((r) => setTimeout(r, 1500));
        return tx.jobs.get('no-such-job');
      });
      await expect.poll(async () => (await admin.query(inTransaction)).rows.length).toBe(1);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM (${inTransaction}) t`);
      await expect(transaction).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503 });
      expect(await store.jobs.get('no-such-job')).toBeNull();
    } finally {
      await admin.end();
      await opened.close();
    }
  });
});

/**
 * A team server of several nodes, each a real process of the built CLI, on one real PostgreSQL (from
 * scripts/team-services.sh) and one shared data folder: API nodes (`lectern serve`) take uploads and
 * reviews, `lectern worker` nodes read documents from the shared queue, job events cross nodes.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, listPage, repoRoot, tempDir, waitForProgress, type TestServer } from '../helpers/app.js';
import { installTestModel, TEST_MODEL, waitForIngest } from '../helpers/embed-flow.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { sseRequest } from '../helpers/sse.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { teamNodes, uploadJob, type ApiNode, type TeamNode, type TeamNodeOptions } from './team-node.js';
import { expectDiedTwice } from './worker-died.js';

const services = useTeamServices();
const key = randomBytes(16).toString('hex');
let db: pg.Pool;
let shared: Omit<TeamNodeOptions, 'kind'>;
const { api, worker, killAll } = teamNodes(() => shared);
let longPdf: Buffer;

beforeAll(async () => {
  const url = new URL(await freshDatabase(services().env.LECTERN_DATABASE_URL, `team_nodes_${process.pid}`));
  shared = {
    databaseUrl: url.href,
    dataDir: tempDir('lectern-team-nodes-'),
    key,
    env: { LECTERN_EMBEDDING_MODEL: TEST_MODEL },
  };
  // Models live in the shared folder too: every API node embeds with the same files.
  await installTestModel(shared.dataDir);
  // The first node migrates the database; the others find it ready.
  longPdf = await makeLongPdf(240);
  db = new pg.Pool({ connectionString: url.href, max: 2 });
});
afterAll(async () => {
  await killAll();
  await db?.end();
});

/** The job's tasks in the shared queue, oldest first. */
async function tasksOf(
  jobId: string,
): Promise<{ state: string; attempts: number; worker_id: string | null; error: { code: string } | null }[]> {
  return (
    await db.query(`SELECT state, attempts, worker_id, error FROM tasks WHERE job_id = $1 ORDER BY task_id`, [jobId])
  ).rows;
}

/** Who holds the job's task now (its worker_id), from the shared queue. */
async function holder(jobId: string): Promise<string | null> {
  const { rows } = await db.query(
    `SELECT worker_id FROM tasks WHERE job_id = $1 AND state = 'running' ORDER BY task_id DESC LIMIT 1`,
    [jobId],
  );
  return (rows[0]?.worker_id as string | undefined) ?? null;
}

const TOPICS = [
  ['Volcanoes', 'Magma rises through the crust and erupts as lava, ash and volcanic gas.'],
  ['Baking bread', 'Knead the dough of flour, water, salt and yeast, let it rise twice, then bake it in a hot oven.'],
  ['Chess openings', 'The Sicilian Defence answers the king pawn with the c-pawn.'],
] as const;

/** Every block of the job (pages of 500), as read: id, page, type and text. */
async function blocksOf(node: ApiNode, jobId: string) {
  const items: Record<string, any>[] = [];
  for (let skip = 0; ; skip += 500) {
    const page = await listPage(node as Pick<TestServer, 'call'>, `/jobs/${jobId}/blocks?skip=${skip}&limit=500`);
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) break;
  }
  return items.map((b) => ({
    block_id: b.block_id,
    page: b.page,
    type: b.type,
    text: b.text,
  }));
}

describe('API nodes and workers on one database and one folder', () => {
  let a: ApiNode;
  let b: ApiNode;
  let w1: TeamNode;
  let w2: TeamNode;

  beforeAll(async () => {
    // A reads documents too; B only answers (run_tasks: false).
    a = await api('A');
    [b, w1, w2] = await Promise.all([api('B', ['--no-worker']), worker('w1'), worker('w2')]);
  });

  it('reads an upload of node A elsewhere; node B follows it to ready_for_review and reviews it', async () => {
    const jobId = await uploadJob(a, 'team.pdf', await makeLongPdf(60, 7));
    const { res, events } = await sseRequest(`${b.url}/jobs/${jobId}/events`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(events.at(-1)?.data).toMatchObject({ job_id: jobId, status: 'ready_for_review' });
    // Pages read on another node reached B as they were read, not only at the end.
    expect(events.some((e) => e.data.status === 'processing' && e.data.progress.pages_done > 0)).toBe(true);
    const readers = [a, w1, w2].filter((n) =>
      n.logs.some((l) => l.msg === 'job ready for review' && l.jobId === jobId),
    );
    expect(readers).toHaveLength(1);
    // The reader says how long the pages and the save took, and every reading node said when it was warm.
    const ready = readers[0]!.logs.find((l) => l.msg === 'job ready for review' && l.jobId === jobId)!;
    expect(ready.read_ms).toBeGreaterThan(0);
    expect(ready.save_ms).toBeGreaterThanOrEqual(0);
    for (const n of [a, w1, w2]) await n.logged((l) => l.msg === 'worker threads warm');
    expect(b.logs.some((l) => l.msg === 'job ready for review')).toBe(false);

    const [block] = await blocksOf(b, jobId);
    const before = (await (await b.call('GET', `/jobs/${jobId}/blocks/${block!.block_id}`)).json()) as {
      version: number;
    };
    const patched = await b.call('PATCH', `/jobs/${jobId}/blocks/${block!.block_id}`, {
      json: { version: before.version, edited_text: 'Reviewed on B.' },
    });
    expect(patched.status).toBe(200);
    const seenOnA = (await (await a.call('GET', `/jobs/${jobId}/blocks/${block!.block_id}`)).json()) as {
      text: string;
      version: number;
    };
    expect(seenOnA).toMatchObject({ text: 'Reviewed on B.', version: before.version + 1 });
  });

  it('answers 100 concurrent PATCHes of one block version over both API nodes with one 200 and 99 409s', async () => {
    const jobId = await uploadJob(b, 'race.md', enc('# Race\n\nOne paragraph everybody edits at once.'));
    expect((await a.waitFor(jobId)).status).toBe('ready_for_review');
    const [block] = await blocksOf(a, jobId);
    const { version } = (await (await a.call('GET', `/jobs/${jobId}/blocks/${block!.block_id}`)).json()) as {
      version: number;
    };
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b)
          .call('PATCH', `/jobs/${jobId}/blocks/${block!.block_id}`, { json: { version, edited_text: `edit ${i}` } })
          .then(async (res) => ({ status: res.status, body: await res.json() })),
      ),
    );
    const statuses = answers.map((x) => x.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(99);
    expect(answers.filter((x) => x.status === 409).every((x) => x.body.error.code === 'VERSION_CONFLICT')).toBe(true);
    const winner = answers.find((x) => x.status === 200)!.body as { edited_text: string; version: number };
    expect((await (await b.call('GET', `/jobs/${jobId}/blocks/${block!.block_id}`)).json()).text).toBe(
      winner.edited_text,
    );
  });

  it("carries a bot's documents read on other nodes into its index once, though every API node hears them", async () => {
    const botId = (
      (await (await a.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } })).json()) as {
        bot_id: string;
      }
    ).bot_id;
    const jobIds: string[] = [];
    for (const [i, [title, text]] of TOPICS.entries()) {
      const form = new FormData();
      form.append('file', new Blob([enc(`# ${title}\n\n${text}`) as Uint8Array<ArrayBuffer>]), `topic-${i}.md`);
      const res = await b.call('POST', `/bots/${botId}/documents/upload`, { body: form });
      expect(res.status).toBe(200);
      jobIds.push(((await res.json()) as { job_id: string }).job_id);
    }
    for (const jobId of jobIds) {
      const job = await waitForIngest(b, jobId);
      // What the API nodes said of this job, should it not get there.
      const said = [a, b].flatMap((n) =>
        n.logs
          .filter((l) => l.jobId === jobId && l.level >= 40)
          .map((l) => `${n.name}: ${l.msg} ${JSON.stringify(l.failure ?? l.err ?? {})}`),
      );
      expect(job, said.join('\n')).toMatchObject({ status: 'indexed', ingest_status: 'success', error: null });
      const audit = await listPage(a as Pick<TestServer, 'call'>, `/jobs/${jobId}/audit?limit=500`);
      expect(audit.items.filter((r) => r.action === 'finalize')).toHaveLength(1);
    }
    const found = (await (
      await b.call('POST', `/bots/${botId}/vectorstore`, { json: { query: TOPICS[1][1], top_k: 1 } })
    ).json()) as { documents: { metadata: { job_id: string } }[] };
    expect(found.documents[0]?.metadata.job_id).toBe(jobIds[1]);
  });

  it('lets `lectern keys` on the shared folder write the database itself: its key opens every API node', async () => {
    const env = { ...process.env, LECTERN_DATABASE_URL: shared.databaseUrl, SERVICE_API_KEY: '' };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(repoRoot, 'bin', 'lectern.js'),
        'keys',
        'create',
        'intake',
        '--role',
        'reviewer',
        '--data-dir',
        shared.dataDir,
        '--json',
      ],
      {
        cwd: shared.dataDir,
        env,
      },
    );
    const { secret } = JSON.parse(stdout) as { secret: string };
    for (const node of [a, b])
      expect((await fetch(`${node.url}/jobs`, { headers: { 'x-api-key': secret } })).status).toBe(200);
    // Nodes and commands of a team share the folder: none of them holds it alone.
    expect(existsSync(join(shared.dataDir, 'lectern.lock'))).toBe(false);
  });

  describe('with only the workers reading', () => {
    /** The worker reading the job now: one of the two. */
    async function readerOf(jobId: string): Promise<TeamNode> {
      const held = await holder(jobId);
      const reader = [w1, w2].find((w) => w.workerId === held);
      expect(reader).toBeDefined();
      return reader!;
    }

    beforeAll(async () => {
      // A leaves (its tasks, if any, go back to the queue) and comes back as an API node only.
      await a.kill('SIGTERM');
      a = await api('A2', ['--no-worker']);
    });

    it('gives the document of a worker killed mid-read to the other worker, which reads the same blocks', async () => {
      const jobId = await uploadJob(a, 'long.pdf', longPdf);
      await waitForProgress(a, jobId, 5);
      const victim = await readerOf(jobId);
      const survivor = [w1, w2].find((w) => w !== victim)!;
      await victim.kill('SIGKILL');

      const job = await b.waitFor(jobId, undefined, 180_000);
      expect(job.status).toBe('ready_for_review');
      expect(job.progress.pages_done).toBe(240);
      const { rows } = await db.query(`SELECT state, attempts, worker_id FROM tasks WHERE job_id = $1`, [jobId]);
      expect(rows).toEqual([{ state: 'done', attempts: 2, worker_id: survivor.workerId }]);

      // The same document read once, undisturbed, by the survivor: the same blocks.
      const reference = await uploadJob(b, 'long-again.pdf', longPdf);
      expect((await a.waitFor(reference, undefined, 180_000)).status).toBe('ready_for_review');
      const [resumed, undisturbed] = [await blocksOf(a, jobId), await blocksOf(a, reference)];
      expect(resumed.length).toBeGreaterThan(240);
      expect(resumed).toEqual(undisturbed);

      // A new worker takes the dead one's place for what follows.
      const replacement = await worker(`${victim.name}-again`);
      if (victim === w1) w1 = replacement;
      else w2 = replacement;
    });

    it('stops a worker reading a job cancelled through node B', async () => {
      const jobId = await uploadJob(a, 'cancel.pdf', longPdf);
      await waitForProgress(a, jobId, 5);
      const reader = await readerOf(jobId);

      const res = await b.call('POST', `/jobs/${jobId}/cancel`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe('cancelled');
      // Told by the cancel's notification, or by its next heartbeat answering false, whichever comes first.
      await reader.logged(
        (l) => l.msg === 'stopped reading a job' && l.jobId === jobId && ['cancel', 'lost'].includes(l.reason),
        20_000,
      );
      const { rows } = await db.query(`SELECT state FROM tasks WHERE job_id = $1`, [jobId]);
      expect(rows).toEqual([{ state: 'cancelled' }]);
      expect((await a.waitFor(jobId)).status).toBe('cancelled');

      // The reader is free again: a new document is read.
      const next = await uploadJob(a, 'after.md', enc('# After\n\nRead once the cancelled one stopped.'));
      expect((await b.waitFor(next)).status).toBe('ready_for_review');
    });

    it('stops a worker reading a job deleted through node B; the job, its task and its files are gone', async () => {
      const jobId = await uploadJob(a, 'delete.pdf', longPdf);
      await waitForProgress(a, jobId, 5);
      const reader = await readerOf(jobId);
      expect((await b.call('DELETE', `/jobs/${jobId}`)).status).toBe(204);
      await reader.logged((l) => l.msg === 'stopped reading a job' && l.jobId === jobId, 20_000);
      expect((await a.call('GET', `/jobs/${jobId}`)).status).toBe(404);
      expect((await tasksOf(jobId)).map((t) => t.state)).toEqual(['cancelled']);
      expect(existsSync(join(shared.dataDir, 'files', jobId))).toBe(false);
    });

    it('takes nothing from a live reader when more nodes start', async () => {
      const jobId = await uploadJob(a, 'steady.pdf', longPdf);
      await waitForProgress(a, jobId, 5);
      const held = await holder(jobId);
      expect(held).not.toBeNull();
      // Each resumes unfinished work as it starts: the document being read is not unfinished work.
      const late = await Promise.all([api('C', ['--no-worker']), worker('w-late')]);
      expect((await a.waitFor(jobId, undefined, 180_000)).status).toBe('ready_for_review');
      expect(await tasksOf(jobId)).toEqual([{ state: 'done', attempts: 1, worker_id: held, error: null }]);
      await Promise.all(late.map((n) => n.kill('SIGTERM')));
    });

    it('fails with WORKER_DIED a document whose readers were killed twice, instead of reading it a third time', async () => {
      const jobId = await uploadJob(a, 'deadly.pdf', longPdf);
      for (const attempt of [1, 2]) {
        // Killed while it reads: its task shows pages read under this attempt.
        await expect
          .poll(
            async () =>
              (
                await db.query(
                  `SELECT attempts, (progress->>'pages_done')::int AS pages FROM tasks WHERE job_id = $1 AND state = 'running'`,
                  [jobId],
                )
              ).rows[0],
            { timeout: 60_000 },
          )
          .toMatchObject({ attempts: attempt, pages: expect.any(Number) });
        await (await readerOf(jobId)).kill('SIGKILL');
      }
      // Both readers are dead: a new worker finds the task's attempts used up and fails the job.
      w1 = await worker('w-third');
      const job = await b.waitFor(jobId, ['failed', 'ready_for_review', 'cancelled'], 60_000);
      expectDiedTwice(job, 'failed', await tasksOf(jobId));
    });
  });
});

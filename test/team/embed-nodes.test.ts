/**
 * Embeds on a team server: POST /jobs/{id}/embed on an API node queues an `embed` task in the shared queue,
 * which a node that runs tasks claims and embeds with its own pool (the real MiniLM), under the same leases
 * as reading. Real processes of the built CLI on one real PostgreSQL and one shared data folder.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vectorTableName } from '../../server/store/postgres/collection-tables.js';
import { enc, json, tempDir } from '../helpers/app.js';
import { installTestModel, NOTE_TOPICS, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { startEmbeddingServer } from '../helpers/embedding-servers.js';
import type { ProviderServer } from '../helpers/provider-request.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { TEST_TASK_LEASE_MS } from '../helpers/test-database.js';
import { teamNodes, type ApiNode, type TeamNode, type TeamNodeOptions } from './team-node.js';
import { expectDiedTwice } from './worker-died.js';

const services = useTeamServices();
const key = randomBytes(16).toString('hex');
let db: pg.Pool;
/** An OpenAI-protocol embedding server that wants a key: the key a request brings must reach it, and no table. */
let openai: ProviderServer;
const OPENAI_KEY = 'sk-team-embed-456';
let shared: Omit<TeamNodeOptions, 'kind'>;
const { nodes, api: startApi, worker, killAll } = teamNodes(() => shared);

/**
 * Enough sections, each a sentence long, that embedding them on a worker's one thread takes well over the
 * few seconds a node takes to start (and a test to kill one), while reading and finalizing them stay quick.
 */
const NOTES = 2_400;
const NOTES_MD = Array.from(
  { length: NOTES },
  (_, i) =>
    `## Note ${i}\n\nA note on ${NOTE_TOPICS[i % NOTE_TOPICS.length]}, number ${i}, written down for the embedding test; it says a little more about ${NOTE_TOPICS[(i * 7) % NOTE_TOPICS.length]} than a title would, as the paragraphs of a real document do, so that the model takes a while over each one.\n`,
).join('\n');

beforeAll(async () => {
  const url = new URL(await freshDatabase(services().env.LECTERN_DATABASE_URL, `team_embeds_${process.pid}`));
  openai = await startEmbeddingServer('openai', { apiKey: OPENAI_KEY, model: 'text-embedding-minilm' });
  shared = {
    databaseUrl: url.href,
    dataDir: tempDir('lectern-team-embeds-'),
    key,
    // The test suite's lease: a killed worker's embed comes back in seconds.
    env: {
      LECTERN_EMBEDDING_MODEL: TEST_MODEL,
      LECTERN_TASK_LEASE_MS: String(TEST_TASK_LEASE_MS),
      LECTERN_ALLOWED_PRIVATE_HOSTS: new URL(openai.url).host,
    },
  };
  // Models live in the shared folder: every node that embeds finds the same files.
  await installTestModel(shared.dataDir);
  db = new pg.Pool({ connectionString: url.href, max: 2 });
});
afterAll(async () => {
  await killAll();
  await db?.end();
  await openai?.close();
});

// API nodes here run no tasks: whatever they accept is read and embedded elsewhere.
const api = (name: string): Promise<ApiNode> => startApi(name, ['--no-worker']);

/** Uploads Markdown through `node`, waits until a worker read it, and finalizes it (everything approved). */
async function finalized(node: ApiNode, name: string, markdown: string): Promise<string> {
  const res = await node.upload(name, enc(markdown));
  expect(res.status).toBe(201);
  const { job_id } = (await res.json()) as { job_id: string };
  expect((await node.waitFor(job_id, undefined, 180_000)).status).toBe('ready_for_review');
  const done = await node.call('POST', `/jobs/${job_id}/finalize`, {
    json: { finalize_policy: 'auto_approve_pending' },
  });
  expect(done.status, await done.clone().text()).toBe(200);
  return job_id;
}

async function embed(node: ApiNode, jobId: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await node.call('POST', `/jobs/${jobId}/embed`, { json: body });
  const accepted = await json(res);
  expect(res.status, JSON.stringify(accepted)).toBe(202);
  return accepted;
}

type EmbedTask = {
  state: string;
  attempts: number;
  worker_id: string | null;
  error: { code: string; message: string } | null;
};
/** The job's embed tasks in the shared queue, oldest first. */
async function embedTasks(jobId: string): Promise<EmbedTask[]> {
  return (
    await db.query(
      `SELECT state, attempts, worker_id, error FROM tasks WHERE job_id = $1 AND kind = 'embed' ORDER BY task_id`,
      [jobId],
    )
  ).rows;
}

/** Waits until the job's embed runs on a node and has embedded some chunks (not all); returns who holds it. */
async function embeddingOn(node: ApiNode, jobId: string): Promise<string> {
  const end = Date.now() + 120_000;
  for (;;) {
    const job = await json(await node.call('GET', `/jobs/${jobId}`));
    const done = job.index?.progress?.chunks_embedded ?? 0;
    if (job.status === 'embedding' && done > 0 && done < NOTES) {
      const [task] = (await embedTasks(jobId)).filter((t) => t.state === 'running');
      if (task?.worker_id) return task.worker_id;
    }
    if (job.status !== 'embedding' && job.status !== 'finalized')
      throw new Error(`job ${jobId} ended ${job.status} before its embed was seen running`);
    if (Date.now() > end) throw new Error(`job ${jobId} showed no embed under way in 120 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The job's vectors: its chunk_vectors rows (distinct chunks too) and the rows of its collection's pgvector table. */
async function vectorsOf(jobId: string): Promise<{ rows: number; chunks: number; stored: number }> {
  const [{ rows, chunks }] = (
    await db.query(
      `SELECT count(*)::int AS rows, count(DISTINCT chunk_id)::int AS chunks FROM chunk_vectors WHERE job_id = $1`,
      [jobId],
    )
  ).rows;
  const [{ stored }] = (await db.query(`SELECT count(*)::int AS stored FROM ${vectorTableName(`job-${jobId}`)}`)).rows;
  return { rows, chunks, stored };
}

describe('embeds through the shared queue', () => {
  let a: ApiNode;
  let w1: TeamNode;
  /** NOTES_MD embedded undisturbed, by one worker in one attempt. */
  let undisturbedJob: string;

  beforeAll(async () => {
    [a, w1] = await Promise.all([api('A'), worker('w1')]);
  });

  it('embeds on a worker a job whose embed an API node that runs no tasks accepted; search through that API node finds it', async () => {
    const jobId = await finalized(a, 'topics.md', TOPICS_MD);
    const accepted = await embed(a, jobId);
    expect(accepted).toMatchObject({
      job_id: jobId,
      status: 'embedding',
      collection_name: `job-${jobId}`,
      provider: 'local',
      model: TEST_MODEL,
      dimensions: 384,
      chunks: { to_embed: 5 },
    });

    const job = await a.waitFor(jobId, ['indexed', 'finalized'], 120_000);
    expect(job).toMatchObject({
      status: 'indexed',
      error: null,
      index: { collection_name: `job-${jobId}`, vectors: 5, progress: { chunks_embedded: 5, chunks_total: 5 } },
    });
    expect(await embedTasks(jobId)).toEqual([{ state: 'done', attempts: 1, worker_id: w1.workerId, error: null }]);
    expect(w1.logs.some((l) => l.msg === 'job indexed' && l.jobId === jobId)).toBe(true);
    expect(a.logs.some((l) => l.msg === 'job indexed')).toBe(false);

    const found = await json(
      await a.call('POST', '/search', {
        json: { job_id: jobId, query: 'how do plants make sugar from light', mode: 'vector', top_k: 1 },
      }),
    );
    expect(found.results[0].section_path).toEqual(['Photosynthesis']);
  });

  it('runs an embed whose request carries an api_key on the API node that took it, and writes the key nowhere', async () => {
    const jobId = await finalized(a, 'keyed.md', TOPICS_MD);
    await embed(a, jobId, {
      provider: 'openai',
      model: 'text-embedding-minilm',
      base_url: `${openai.url}/v1`,
      api_key: OPENAI_KEY,
      collection_name: 'remote-keyed',
    });
    expect(await a.waitFor(jobId, ['indexed', 'finalized'], 120_000)).toMatchObject({
      status: 'indexed',
      error: null,
      index: { collection_name: 'remote-keyed', vectors: 5 },
    });
    // Held by A from the start (A takes no task from the queue): only A had the key.
    expect(await embedTasks(jobId)).toEqual([{ state: 'done', attempts: 1, worker_id: a.workerId, error: null }]);
    expect(
      openai.requests
        .filter((r) => r.path === '/v1/embeddings')
        .every((r) => r.authorization === `Bearer ${OPENAI_KEY}`),
    ).toBe(true);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM tasks WHERE payload::text LIKE $1`, [
      `%${OPENAI_KEY}%`,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('leaves a running embed alone when another API node starts meanwhile', async () => {
    const jobId = await finalized(a, 'notes.md', NOTES_MD);
    await embed(a, jobId);
    expect(await embeddingOn(a, jobId)).toBe(w1.workerId);

    // At its start the new node puts back to rest only the embeds nobody runs: this one runs on w1.
    const c = await api('C');
    expect(c.logs.some((l) => l.msg === 'embeds interrupted by the last stop: embed those jobs again')).toBe(false);
    const during = await json(await c.call('GET', `/jobs/${jobId}`));
    expect(during.status).toBe('embedding');
    expect(during.index.progress.chunks_embedded).toBeGreaterThan(0);

    const job = await c.waitFor(jobId, ['indexed', 'finalized'], 180_000);
    expect(job).toMatchObject({ status: 'indexed', error: null, index: { vectors: NOTES } });
    expect(await embedTasks(jobId)).toEqual([{ state: 'done', attempts: 1, worker_id: w1.workerId, error: null }]);
    undisturbedJob = jobId;
    await c.kill('SIGTERM');
  }, 300_000);

  it('gives the embed of a worker killed mid-way to another worker, which embeds each chunk once', async () => {
    const w2 = await worker('w2');
    const jobId = await finalized(a, 'notes-killed.md', NOTES_MD);
    await embed(a, jobId);
    const held = await embeddingOn(a, jobId);
    const victim = [w1, w2].find((w) => w.workerId === held)!;
    const survivor = [w1, w2].find((w) => w !== victim)!;
    expect(victim).toBeDefined();
    await victim.kill('SIGKILL');

    // The lease runs out, the survivor claims the task and embeds the job from its rows.
    const job = await a.waitFor(jobId, ['indexed', 'finalized'], 180_000);
    expect(job).toMatchObject({
      status: 'indexed',
      error: null,
      index: { vectors: NOTES, progress: { chunks_embedded: NOTES, chunks_total: NOTES } },
    });
    expect(await embedTasks(jobId)).toEqual([
      { state: 'done', attempts: 2, worker_id: survivor.workerId, error: null },
    ]);

    // The same document embedded undisturbed (above): as many vectors, each chunk once.
    const [resumed, undisturbed] = [await vectorsOf(jobId), await vectorsOf(undisturbedJob)];
    expect(undisturbed).toEqual({ rows: NOTES, chunks: NOTES, stored: NOTES });
    expect(resumed).toEqual(undisturbed);
    const found = await json(
      await a.call('POST', '/search', {
        json: { job_id: jobId, query: 'a note about wild bees', mode: 'vector', top_k: 3 },
      }),
    );
    expect(found.results).toHaveLength(3);

    if (victim === w1) w1 = survivor;
  }, 600_000);

  it('stops the embed on the worker running it when the job is deleted through an API node', async () => {
    const jobId = await finalized(a, 'notes-deleted.md', NOTES_MD);
    await embed(a, jobId);
    const held = await embeddingOn(a, jobId);
    const runner = nodes.find((n) => n.workerId === held)!;
    expect(runner).toBeDefined();
    expect((await a.call('DELETE', `/jobs/${jobId}`)).status).toBe(204);
    // Told by the cancel's notification, or by its next heartbeat answering false, whichever comes first.
    await runner.logged(
      (l) => l.msg === 'stopped embedding a job' && l.jobId === jobId && ['cancel', 'lost'].includes(l.reason),
      20_000,
    );
    expect((await a.call('GET', `/jobs/${jobId}`)).status).toBe(404);
    expect((await embedTasks(jobId)).map((t) => t.state)).toEqual(['cancelled']);
    expect((await db.query(`SELECT count(*)::int AS n FROM chunk_vectors WHERE job_id = $1`, [jobId])).rows[0].n).toBe(
      0,
    );

    // The worker is free again: the next embed runs.
    const next = await finalized(a, 'after.md', '# After\n\nEmbedded once the deleted one stopped.\n');
    await embed(a, next);
    expect((await a.waitFor(next, ['indexed', 'finalized'], 120_000)).status).toBe('indexed');
  }, 300_000);

  it('puts the job back to rest with WORKER_DIED once the workers embedding it were killed twice; it can be embedded again', async () => {
    const alive = [nodes.find((n) => n.workerId === w1.workerId)!, await worker('w3')];
    const jobId = await finalized(a, 'notes-deadly.md', NOTES_MD);
    await embed(a, jobId);
    for (const attempt of [1, 2]) {
      // Killed while it embeds: its task shows chunks embedded under this attempt.
      await expect
        .poll(
          async () =>
            (
              await db.query(
                `SELECT attempts, (progress->>'chunks_embedded')::int AS done FROM tasks WHERE job_id = $1 AND kind = 'embed' AND state = 'running'`,
                [jobId],
              )
            ).rows[0],
          { timeout: 60_000 },
        )
        .toMatchObject({ attempts: attempt, done: expect.any(Number) });
      const [task] = (await embedTasks(jobId)).filter((t) => t.state === 'running');
      const victim = alive.find((w) => w.workerId === task?.worker_id);
      expect(victim).toBeDefined();
      await victim!.kill('SIGKILL');
    }
    // Both are dead: a new worker finds the task's attempts used up and puts the job back to rest.
    w1 = await worker('w4');
    const job = await a.waitFor(jobId, ['finalized', 'indexed'], 60_000);
    expectDiedTwice(job, 'finalized', await embedTasks(jobId));
    expect((await db.query(`SELECT count(*)::int AS n FROM chunk_vectors WHERE job_id = $1`, [jobId])).rows[0].n).toBe(
      0,
    );

    await embed(a, jobId);
    expect(await a.waitFor(jobId, ['indexed', 'finalized'], 180_000)).toMatchObject({
      status: 'indexed',
      error: null,
      index: { vectors: NOTES },
    });
  }, 600_000);
});

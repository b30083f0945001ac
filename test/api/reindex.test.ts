/**
 * Re-embedding a collection with another model over HTTP: searches answer from the old index, unchanged,
 * while the reindex runs; once it ends the collection is on the new model and answers as a collection
 * embedded with it from the start; a cancel leaves everything as it was; a restart resumes it. The second
 * model is the test MiniLM imported with CLS pooling: the same weights, other vectors.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, startServerWithModel, search, TEST_MODEL } from '../helpers/embed-flow.js';
import { openApiChecker, type OpenApiChecker, type OpenApiDoc } from '../helpers/openapi-check.js';
import { writeMiniLmFolder } from '../helpers/st-folder.js';
import { testStore } from '../helpers/test-database.js';

const OTHER = 'minilm-cls';
/** Short unrelated sections, one chunk each: enough that a reindex runs long enough to be searched during. */
const TOPICS = ['volcano', 'bread', 'chess', 'tax', 'river', 'violin', 'comet', 'glacier', 'harbour', 'orchard'];
const DOC = Array.from({ length: 240 }, (_, i) => {
  const t = TOPICS[i % TOPICS.length]!;
  return `# Note ${i} on the ${t}\n\nEntry ${i}: the ${t} seen in record ${i * 7} of the ${t} survey, filed with remarks on the ${t} number ${i}.\n`;
}).join('\n');
const QUERY = { query: 'remarks on the comet survey', mode: 'vector', top_k: 5 };

let server: TestServer;
let files = '';
let dataDir = '';

const reindexPath = (name: string) => `/collections/${name}/reindex`;
let doc: OpenApiDoc;
let check: OpenApiChecker;
/** Every status each reindex operation was seen to answer, each answer checked against the OpenAPI document. */
const seen = new Map<string, Set<number>>();
async function reindexCall(method: 'GET' | 'POST' | 'DELETE', name: string, body?: unknown): Promise<Response> {
  const res = await server.call(method, reindexPath(name), body === undefined ? {} : { json: body });
  const op = doc.paths['/collections/{name}/reindex']?.[method.toLowerCase()];
  expect(op, `${method} is in the document`).toBeDefined();
  const text = await res.clone().text();
  expect(check.answerMismatch(res.status, res.headers.get('content-type') ?? '', text, op!), text).toBeUndefined();
  seen.set(method, (seen.get(method) ?? new Set()).add(res.status));
  return res;
}
const post = (name: string, body: unknown) => reindexCall('POST', name, body);
const status = async (name: string) => json(await reindexCall('GET', name));

/** What a search answers, as compared: the model and every hit's chunk and score. */
async function answer(collection: string) {
  const res = await search(server, { ...QUERY, collection_name: collection });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return {
    model: res.body.model as string,
    hits: (res.body.results as { chunk_id: string; text: string; score: number }[]).map((r) => ({
      text: r.text,
      score: r.score,
    })),
  };
}

async function until(name: string, states: string[], timeoutMs = 180_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await status(name);
    if (states.includes(r.state)) return r;
    if (Date.now() > end) throw new Error(`reindex of ${name} still ${r.state} after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A finalized job of DOC embedded with the test model into `collection`. */
async function collectionOf(collection: string, body: Record<string, unknown> = {}) {
  const job = await finalizedJob(server, `${collection}.md`, DOC);
  await embedAndWait(server, job.job_id, { collection_name: collection, ...body });
  return job.job_id as string;
}

/** The new index's files and tables left behind: on the desktop, index files named for a reindex. */
const reindexFiles = () =>
  testStore() === 'postgres' ? [] : readdirSync(join(dataDir, 'indexes')).filter((f) => f.includes('~'));

beforeAll(async () => {
  files = tempDir('lectern-reindex-files-');
  await writeMiniLmFolder(join(files, 'cls'), { pooling: 'cls' });
  dataDir = tempDir();
  server = await startServerWithModel({ document_roots: [files] }, dataDir);
  const imported = await server.call('POST', `/models/${OTHER}/import`, { json: { path: join(files, 'cls') } });
  expect(imported.status, await imported.clone().text()).toBe(200);
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDoc;
  check = openApiChecker(doc);
}, 300_000);
afterAll(async () => server?.close());

describe('POST /collections/{name}/reindex', () => {
  it('searches answer from the old model while it runs, then from the new one, as if embedded with it', async () => {
    await collectionOf('library');
    const reference = 'reference-cls';
    await collectionOf(reference, { model: OTHER });
    const before = await answer('library');
    expect(before.model).toBe(TEST_MODEL);
    const expected = await answer(reference);
    expect(expected.hits).not.toEqual(before.hits);

    const res = await post('library', { embedding_model: OTHER });
    const accepted = await json(res);
    expect(res.status, JSON.stringify(accepted)).toBe(202);
    expect(accepted).toMatchObject({
      state: 'running',
      model: OTHER,
      collection: { model: TEST_MODEL },
    });

    let during = 0;
    for (;;) {
      const running = (await status('library')).state === 'running';
      const got = await answer('library');
      const still = (await status('library')).state === 'running';
      if (running && still) {
        during++;
        expect(got).toEqual(before);
      } else if (!still) break;
    }
    expect(during).toBeGreaterThan(0);

    const done = await until('library', ['done', 'failed', 'cancelled']);
    expect(done).toMatchObject({
      state: 'done',
      error: null,
      collection: { model: OTHER },
      progress: { chunks_done: done.progress.chunks_total },
    });
    expect(done.progress.chunks_total).toBeGreaterThan(200);
    const after = await answer('library');
    expect(after.model).toBe(OTHER);
    expect(after.hits.map((h) => h.text)).toEqual(expected.hits.map((h) => h.text));
    after.hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected.hits[i]!.score, 2));
    // The old index is gone: only the new one remains, under the reindex's name.
    if (testStore() !== 'postgres')
      expect(
        readdirSync(join(dataDir, 'indexes')).filter((f) => f.startsWith('c-library') && f.endsWith('.usearch')),
      ).toEqual([`c-library~${done.reindex_id}.usearch`]);
    // Back to the first model: another reindex, from the reindexed index.
    expect((await post('library', { embedding_model: TEST_MODEL })).status).toBe(202);
    expect((await until('library', ['done', 'failed'])).state).toBe('done');
    expect(await answer('library')).toEqual(before);
  }, 600_000);

  it('a cancel leaves the collection on its model, its searches as they were, no partial index', async () => {
    await collectionOf('kept');
    const before = await answer('kept');
    expect((await post('kept', { embedding_model: OTHER })).status).toBe(202);
    const res = await reindexCall('DELETE', 'kept');
    const cancelled = await json(res);
    expect(res.status, JSON.stringify(cancelled)).toBe(200);
    expect(cancelled).toMatchObject({ state: 'cancelled', collection: { model: TEST_MODEL } });
    expect(await answer('kept')).toEqual(before);
    expect(await status('kept')).toMatchObject({ state: 'cancelled' });
    expect(reindexFiles().filter((f) => f.startsWith('c-kept'))).toEqual([]);
    const again = await reindexCall('DELETE', 'kept');
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('INVALID_STATE');
  }, 300_000);

  it('answers the 4xx cases with their codes', async () => {
    await collectionOf('busy');
    const code = async (res: Response) => [res.status, (await json(res)).error?.code];
    expect(await code(await post('no-such-collection', { embedding_model: OTHER }))).toEqual([
      404,
      'COLLECTION_NOT_FOUND',
    ]);
    expect(await code(await reindexCall('GET', 'no-such-collection'))).toEqual([404, 'COLLECTION_NOT_FOUND']);
    expect(await code(await reindexCall('GET', 'busy'))).toEqual([404, 'REINDEX_NOT_FOUND']);
    expect(await code(await reindexCall('DELETE', 'busy'))).toEqual([404, 'REINDEX_NOT_FOUND']);
    expect(await code(await post('busy', { embedding_model: TEST_MODEL }))).toEqual([409, 'SAME_MODEL']);
    expect(await code(await post('busy', { embedding_model: 'all-minilm-l6-v2' }))).toEqual([
      409,
      'MODEL_NOT_INSTALLED',
    ]);
    expect(await code(await post('busy', {}))).toEqual([400, 'VALIDATION_FAILED']);
    expect(await code(await post('bad~name', { embedding_model: OTHER }))).toEqual([400, 'VALIDATION_FAILED']);
    expect((await post('busy', { embedding_model: OTHER })).status).toBe(202);
    expect(await code(await post('busy', { embedding_model: OTHER }))).toEqual([409, 'REINDEX_RUNNING']);
    const other = await finalizedJob(server, 'late.md', '# Late\n\nA late note on harbours.\n');
    expect(
      await code(await server.call('POST', `/jobs/${other.job_id}/embed`, { json: { collection_name: 'busy' } })),
    ).toEqual([409, 'REINDEX_RUNNING']);
    expect((await until('busy', ['done', 'failed'])).state).toBe('done');
  }, 300_000);

  it('a restart mid-way keeps the old index answering and resumes the reindex', async () => {
    await collectionOf('resumed');
    const before = await answer('resumed');
    expect((await post('resumed', { embedding_model: OTHER })).status).toBe(202);
    await server.close();
    server = await startServer({ dataDir, settings: { embedding_model: TEST_MODEL, document_roots: [files] } });
    const seen = await status('resumed');
    if (seen.state === 'running') expect(await answer('resumed')).toEqual(before);
    const done = await until('resumed', ['done', 'failed', 'cancelled']);
    expect(done).toMatchObject({ state: 'done', collection: { model: OTHER } });
    expect((await answer('resumed')).model).toBe(OTHER);
  }, 300_000);

  it('was seen succeeding and failing as the OpenAPI document declares, each operation', () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const statuses = [...(seen.get(method) ?? [])];
      expect(
        statuses.some((x) => x < 300),
        `${method} succeeded`,
      ).toBe(true);
      expect(
        statuses.some((x) => x >= 400),
        `${method} failed`,
      ).toBe(true);
    }
  });
});

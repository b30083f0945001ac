import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { collectionSize, collectionStored } from '../helpers/server-db.js';
import { embedAndWait, finalizedJob, installTestModel, search, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';

const RIVERS_MD =
  '# Rivers\n\nThe Nile and the Amazon are the longest rivers; their deltas are fertile.\n\n# Glaciers\n\nIce sheets carve valleys and leave moraines behind.\n';
const open: TestServer[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

async function start(dataDir: string, key: string) {
  const s = await startServer({ dataDir, key, settings: { embedding_model: TEST_MODEL } });
  open.push(s);
  return s;
}

/** Temporary files of a vector index being saved (the desktop's USearch files), left behind by nothing. */
const tempFiles = (dataDir: string) =>
  existsSync(join(dataDir, 'indexes')) ? readdirSync(join(dataDir, 'indexes')).filter((f) => f.endsWith('.tmp')) : [];

describe('index lifecycle', () => {
  it('a restart keeps the index: same answers from the saved file; deleting a job removes its vectors and keywords', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir, 'k'.repeat(32));
    await installTestModel(dataDir);
    const topics = await finalizedJob(first, 'topics.md', TOPICS_MD);
    const rivers = await finalizedJob(first, 'rivers.md', RIVERS_MD);
    await embedAndWait(first, topics.job_id, { collection_name: 'library' });
    await embedAndWait(first, rivers.job_id, { collection_name: 'library' });
    const query = { collection_name: 'library', query: 'sunlight and leaves', top_k: 7 };
    const before = await search(first, query);
    expect(before.body.total).toBe(7);
    await first.close();
    expect(await collectionSize(dataDir, 'library')).toBe(7);

    const second = await start(dataDir, 'k'.repeat(32));
    const after = await search(second, query);
    expect(after.body.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual(
      before.body.results.map((r: { chunk_id: string }) => r.chunk_id),
    );
    expect(after.body.index_version).toBe(before.body.index_version);

    expect((await second.call('DELETE', `/jobs/${topics.job_id}`)).status).toBe(204);
    expect(await collectionSize(dataDir, 'library')).toBe(2);
    const left = await search(second, { ...query, top_k: 50 });
    expect(left.body.results.every((r: { job_id: string }) => r.job_id === rivers.job_id)).toBe(true);
    expect(left.body.total).toBe(2);
    expect((await search(second, { collection_name: 'library', query: 'Sicilian', mode: 'keyword' })).body.total).toBe(
      0,
    );
    expect((await search(second, { job_id: topics.job_id, query: 'x' })).status).toBe(404);
    expect(tempFiles(dataDir)).toEqual([]);
  });

  it('deleting a job while it embeds stops its embed, and the server embeds the next job', async () => {
    const dataDir = tempDir();
    const s = await start(dataDir, 'd'.repeat(32));
    await installTestModel(dataDir);
    const notes = Array.from(
      { length: 1_500 },
      (_, i) =>
        `## Note ${i}\n\nA note on topic ${i % 7}, number ${i}, with a sentence more so that the model takes a moment over it.\n`,
    );
    const long = await finalizedJob(s, 'long.md', notes.join('\n'));
    expect((await s.call('POST', `/jobs/${long.job_id}/embed`, { json: {} })).status).toBe(202);
    await expect
      .poll(
        async () => (await json(await s.call('GET', `/jobs/${long.job_id}`))).index?.progress?.chunks_embedded ?? 0,
        { timeout: 60_000 },
      )
      .toBeGreaterThan(0);
    // Stopped between two batches: a pool thread is never cut off in the middle of the model's run.
    expect((await s.call('DELETE', `/jobs/${long.job_id}`)).status).toBe(204);
    expect((await s.call('GET', `/jobs/${long.job_id}`)).status).toBe(404);
    const next = await finalizedJob(s, 'next.md', RIVERS_MD);
    expect((await embedAndWait(s, next.job_id)).job).toMatchObject({ status: 'indexed', index: { vectors: 2 } });
    expect(await collectionSize(dataDir, `job-${long.job_id}`)).toBe(0);
  });

  it('a job embedded into another collection moves there; its own collection file is emptied', async () => {
    const dataDir = tempDir();
    const s = await start(dataDir, 'q'.repeat(32));
    await installTestModel(dataDir);
    const job = await finalizedJob(s, 'move.md', RIVERS_MD);
    await embedAndWait(s, job.job_id);
    const own = `job-${job.job_id}`;
    expect(await collectionSize(dataDir, own)).toBe(2);
    const moved = await embedAndWait(s, job.job_id, { collection_name: 'elsewhere' });
    expect(moved.accepted.chunks).toMatchObject({ to_embed: 2, removed: 2 });
    expect(moved.job.index).toMatchObject({ collection_name: 'elsewhere', vectors: 2 });
    expect(await collectionSize(dataDir, own)).toBe(0);
    expect(await collectionStored(dataDir, 'elsewhere')).toBe(true);
    expect((await search(s, { job_id: job.job_id, query: 'ice' })).body.collection_name).toBe('elsewhere');
    expect((await json(await s.call('GET', `/jobs/${job.job_id}`))).status).toBe('indexed');
  });
});

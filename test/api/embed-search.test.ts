import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesDir, ingest, json, listAll } from '../helpers/app.js';
import {
  embedAndWait,
  finalizedJob,
  miniLmEmbedder,
  NOTE_TOPICS,
  search,
  searchHits,
  startServerWithModel,
  TEST_MODEL,
  TOPICS_MD,
} from '../helpers/embed-flow.js';
import { cosineSimilarity, readableScore } from '../../server/core/search/similarity.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer(() => startServerWithModel());

/** A finalized and embedded job of TOPICS_MD, and its chunk of the section `section`. */
async function embeddedTopics(name: string, section: string) {
  const job = await finalizedJob(server, name, TOPICS_MD);
  await embedAndWait(server, job.job_id);
  const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
  return { job, chunk: chunks.find((c) => c.section_path[0] === section)! };
}

/** PATCHes a chunk at the version it was read at. */
const patchChunk = (jobId: string, chunk: Record<string, any>, body: Record<string, unknown>) =>
  server.call('PATCH', `/jobs/${jobId}/chunks/${chunk.chunk_id}`, { json: { version: chunk.version, ...body } });

describe('embed and search with the real MiniLM', () => {
  it('embeds a finalized job (202, progress, indexed) and finds each topic by meaning, keyword and both', async () => {
    const job = await finalizedJob(server, 'topics.md', TOPICS_MD);
    const { accepted, job: done } = await embedAndWait(server, job.job_id);
    expect(accepted).toMatchObject({
      status: 'embedding',
      provider: 'local',
      model: TEST_MODEL,
      vector_db: 'usearch',
      dimensions: 384,
      collection_name: `job-${job.job_id}`,
    });
    expect(accepted.chunks).toMatchObject({ accepted: 5, to_embed: 5, unchanged: 0 });
    expect(done.status).toBe('indexed');
    expect(done.index).toMatchObject({
      collection_name: `job-${job.job_id}`,
      model: TEST_MODEL,
      vectors: 5,
      progress: { chunks_embedded: 5, chunks_total: 5 },
    });

    // No word in common with the section: only the meaning can find it.
    const byMeaning = await search(server, {
      job_id: job.job_id,
      query: 'how do plants make sugar from light',
      mode: 'vector',
      top_k: 3,
    });
    expect(byMeaning.status).toBe(200);
    expect(byMeaning.body.results[0].section_path).toEqual(['Photosynthesis']);
    expect(byMeaning.body).toMatchObject({ mode: 'vector', model: TEST_MODEL, total: 3 });
    expect(byMeaning.body.results[0].score).toBeGreaterThan(byMeaning.body.results[1].score);

    const byWord = await search(server, { job_id: job.job_id, query: 'Sicilian', mode: 'keyword' });
    expect(byWord.body.results.map((r: { section_path: string[] }) => r.section_path)).toEqual([['Chess openings']]);

    const hybrid = await search(server, { job_id: job.job_id, query: 'eruption of lava' });
    expect(hybrid.body.mode).toBe('hybrid');
    const top = hybrid.body.results[0];
    expect(top.section_path).toEqual(['Volcanoes']);
    expect(top).toMatchObject({
      chunk_type: expect.any(String),
      page_numbers: [1],
      block_ids: expect.any(Array),
      job_id: job.job_id,
    });
    expect(top.scores.vector).toBeGreaterThan(0);
    expect(top.scores.keyword).toBeGreaterThan(0);
  });

  it('embeds two real fixture PDFs into one collection and finds each by meaning, keyword and both, with filters', async () => {
    const jobs: Record<string, string> = {};
    for (const name of ['booktabs-manual', 'survival-tiedtimes']) {
      const job = await ingest(server, `${name}.pdf`, readFileSync(join(fixturesDir, 'pdfs', `${name}.pdf`)));
      expect(
        (
          await server.call('POST', `/jobs/${job.job_id}/finalize`, {
            json: { finalize_policy: 'auto_approve_pending' },
          })
        ).status,
      ).toBe(200);
      const { accepted, job: done } = await embedAndWait(server, job.job_id, { collection_name: 'fixtures' });
      expect(done.status).toBe('indexed');
      expect(accepted.chunks.to_embed).toBe(accepted.chunks.accepted);
      expect(done.index.vectors).toBe(accepted.chunks.accepted);
      jobs[name] = job.job_id;
    }
    const cases = [
      ['horizontal lines and rules in a table', 'booktabs-manual'],
      ['rounding error of floating point numbers in ages', 'survival-tiedtimes'],
    ] as const;
    for (const [query, expected] of cases) {
      for (const mode of ['vector', 'keyword', 'hybrid']) {
        const hit = await search(server, { collection_name: 'fixtures', query, mode, top_k: 3 });
        expect(hit.status).toBe(200);
        expect(hit.body.results[0].job_id, `${mode}: ${query}`).toBe(jobs[expected]);
      }
    }
    const tables = await search(server, {
      collection_name: 'fixtures',
      query: 'rules',
      filters: { chunk_type: 'table' },
      top_k: 50,
    });
    expect(tables.body.total).toBeGreaterThan(0);
    expect(
      tables.body.results.every(
        (r: { chunk_type: string; job_id: string }) => r.chunk_type === 'table' && r.job_id === jobs['booktabs-manual'],
      ),
    ).toBe(true);
    const onPage = await search(server, {
      job_id: jobs['booktabs-manual'],
      query: 'rules',
      filters: { pages: [16] },
      top_k: 50,
    });
    expect(onPage.body.total).toBeGreaterThan(0);
    expect(onPage.body.results.every((r: { page_numbers: number[] }) => r.page_numbers.includes(16))).toBe(true);
    const range = await search(server, {
      job_id: jobs['booktabs-manual'],
      query: 'table',
      filters: { page_from: 2, page_to: 3 },
      top_k: 50,
      mode: 'vector',
    });
    expect(range.body.total).toBeGreaterThan(0);
    expect(
      range.body.results.every((r: { page_numbers: number[] }) => r.page_numbers.some((p) => p >= 2 && p <= 3)),
    ).toBe(true);
  });

  it('filters by chunk type, page and section', async () => {
    const job = await finalizedJob(server, 'filters.md', TOPICS_MD);
    await embedAndWait(server, job.job_id);
    const bySection = await search(server, { job_id: job.job_id, query: 'oven', filters: { section: 'chess' } });
    expect(bySection.body.results.map((r: { section_path: string[] }) => r.section_path[0])).toEqual([
      'Chess openings',
    ]);
    const noType = await search(server, { job_id: job.job_id, query: 'oven', filters: { chunk_type: 'table' } });
    expect(noType.body).toMatchObject({ results: [], total: 0 });
    const page2 = await search(server, { job_id: job.job_id, query: 'oven', filters: { pages: [2] } });
    expect(page2.body.total).toBe(0);
  });

  it('re-embedding after one chunk edit embeds only that chunk, and search sees the new text', async () => {
    const { job, chunk: tax } = await embeddedTopics('edit.md', 'Tax returns');
    const patched = await patchChunk(job.job_id, tax, {
      edited_text: 'Tax returns\n\nMigrating geese fly south in V formations every autumn.',
    });
    expect(patched.status).toBe(200);
    const again = await embedAndWait(server, job.job_id);
    expect(again.accepted.chunks).toEqual({ accepted: 5, to_embed: 1, unchanged: 4, removed: 1 });
    expect(again.job.index.vectors).toBe(5);
    const birds = await search(server, { job_id: job.job_id, query: 'bird migration', mode: 'vector', top_k: 1 });
    expect(birds.body.results[0]).toMatchObject({ chunk_id: tax.chunk_id, text: expect.stringContaining('geese') });
    const unchanged = await embedAndWait(server, job.job_id);
    expect(unchanged.accepted.chunks).toMatchObject({ to_embed: 0, unchanged: 5, removed: 0 });
  });

  it('indexes only approved and edited chunks: a chunk rejected after indexing loses its vector at the next embed', async () => {
    const { job, chunk: bread } = await embeddedTopics('reject.md', 'Baking bread');
    const patched = await patchChunk(job.job_id, bread, { status: 'rejected' });
    expect(patched.status).toBe(200);
    const again = await embedAndWait(server, job.job_id);
    expect(again.accepted.chunks).toEqual({ accepted: 4, to_embed: 0, unchanged: 4, removed: 1 });
    expect(again.job.index.vectors).toBe(4);
    const all = await search(server, { job_id: job.job_id, query: 'knead the dough and bake it', top_k: 10 });
    expect(all.body.total).toBe(4);
    expect(all.body.results.some((r: { chunk_id: string }) => r.chunk_id === bread.chunk_id)).toBe(false);
  });

  it('searches a whole collection shared by two jobs, or one job within it', async () => {
    const a = await finalizedJob(server, 'a.md', TOPICS_MD);
    const b = await finalizedJob(
      server,
      'b.md',
      '# Rivers\n\nThe Nile and the Amazon are the longest rivers; their deltas are fertile.\n',
    );
    await embedAndWait(server, a.job_id, { collection_name: 'shared' });
    await embedAndWait(server, b.job_id, {
      collection_name: 'shared',
      model: TEST_MODEL,
      provider: 'local',
      vector_db: 'usearch',
    });
    const all = await search(server, { collection_name: 'shared', query: 'long rivers and deltas', top_k: 10 });
    expect(all.body.total).toBe(6);
    expect(all.body.results[0].job_id).toBe(b.job_id);
    const onlyA = await search(server, {
      collection_name: 'shared',
      job_id: a.job_id,
      query: 'long rivers and deltas',
    });
    expect(onlyA.body.results.every((r: { job_id: string }) => r.job_id === a.job_id)).toBe(true);
    expect((await search(server, { job_id: b.job_id, query: 'nile' })).body.collection_name).toBe('shared');
  });

  it('reports the cosine of keyword hits beyond the vector list in an index of 1,100 chunks, and a short answer is the start of a long one', async () => {
    const notes = Array.from(
      { length: 1_100 },
      (_, i) => `## Note ${i}\n\nA note on ${NOTE_TOPICS[i % NOTE_TOPICS.length]}, number ${i}.\n`,
    );
    const job = await finalizedJob(server, 'notes.md', notes.join('\n'));
    expect((await embedAndWait(server, job.job_id)).job.index.vectors).toBe(1_100);
    const query = { job_id: job.job_id, query: 'a note about wild bees', top_k: 1_000 };
    const byVector = await searchHits(server, { ...query, mode: 'vector' });
    const byKeyword = await searchHits(server, { ...query, mode: 'keyword' });
    expect(byVector).toHaveLength(1_000);
    expect(byKeyword).toHaveLength(1_000);
    const cosine = new Map(byVector.map((r) => [r.chunk_id, r.score]));
    for (const r of byKeyword.filter((x) => cosine.has(x.chunk_id)))
      expect(r.score).toBeCloseTo(cosine.get(r.chunk_id)!, 3);
    // A keyword hit the vector list did not reach: its cosine is read from a deeper search of the index, or
    // embedded again beyond that; either way the chunk's own, which the same model in this process gives.
    // (Not a filtered search: HNSW may not reach a poorly linked chunk at all, which is why it was missed.)
    const beyond = byKeyword.filter((r) => !cosine.has(r.chunk_id));
    expect(beyond.length).toBeGreaterThan(0);
    const model = await miniLmEmbedder();
    try {
      const [q, ...texts] = await model.embed([query.query, ...beyond.map((r) => r.text)]);
      beyond.forEach((r, i) => expect(r.score).toBeCloseTo(readableScore(cosineSimilarity(q!, texts[i]!)), 2));
    } finally {
      await model.close();
    }
    // Fusion lists as deep for every top_k up to 100, so ten results are the first ten of a hundred.
    // (This query's first ten differed when the lists went twice as deep as top_k.)
    const mixed = { ...query, query: 'printing bread and tax law' };
    const ten = (await searchHits(server, { ...mixed, top_k: 10 })).map((r) => r.chunk_id);
    const hundred = (await searchHits(server, { ...mixed, top_k: 100 })).map((r) => r.chunk_id);
    expect(hundred.slice(0, 10)).toEqual(ten);
  });

  it('refuses what it cannot do: 409 before finalize, 409 another model, 409 not installed, 404s, 400', async () => {
    const job = await finalizedJob(server, 'errors.md', TOPICS_MD);
    await embedAndWait(server, job.job_id, { collection_name: 'minilm-only' });

    const other = await server.call('POST', `/jobs/${job.job_id}/embed`, {
      json: { collection_name: 'minilm-only', model: 'all-minilm-l6-v2' },
    });
    // all-minilm-l6-v2 (fp32) is not installed here: the model check comes first and says how to get it.
    expect(other.status).toBe(409);
    const notInstalled = await json(other);
    expect(notInstalled.error.code).toBe('MODEL_NOT_INSTALLED');
    expect(notInstalled.error.message).toContain('lectern models pull all-minilm-l6-v2');
    expect(notInstalled.error.message).toContain('lectern models import all-minilm-l6-v2 <path>');

    const unknown = await server.call('POST', `/jobs/${job.job_id}/embed`, { json: { model: 'no-such-model' } });
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('MODEL_NOT_FOUND');

    const pending = await server.call('POST', '/jobs', {
      body: (() => {
        const f = new FormData();
        f.append('file', new Blob(['# T\n\ntext\n']), 't.md');
        return f;
      })(),
    });
    const pendingJob = await json(pending);
    await server.waitFor(pendingJob.job_id);
    const early = await server.call('POST', `/jobs/${pendingJob.job_id}/embed`, { json: {} });
    expect(early.status).toBe(409);
    expect((await json(early)).error.code).toBe('INVALID_STATE');
    const notIndexed = await search(server, { job_id: pendingJob.job_id, query: 'text' });
    expect(notIndexed.status).toBe(409);

    expect((await server.call('POST', '/jobs/nope/embed', { json: {} })).status).toBe(404);
    const noCollection = await search(server, { collection_name: 'absent', query: 'x' });
    expect(noCollection.status).toBe(404);
    expect(noCollection.body.error.code).toBe('COLLECTION_NOT_FOUND');
    expect((await search(server, { query: 'x' })).status).toBe(400);
    expect((await search(server, { job_id: job.job_id, query: 'x', mode: 'fuzzy' })).status).toBe(400);
    expect((await server.call('POST', `/jobs/${job.job_id}/embed`, { json: { vector_db: 'chroma' } })).status).toBe(
      400,
    );
  });
});

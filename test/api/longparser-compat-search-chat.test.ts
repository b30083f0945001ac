import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll, startServer, type TestServer } from '../helpers/app.js';
import { chat } from '../helpers/chat-flow.js';
import { embedAndWait, finalizedJob, installTestModel, search, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { startGatedChatServer, type GatedChatServer } from '../helpers/gated-chat-server.js';
import { createKey } from '../helpers/keys-cli.js';

// Driven as LongParser 0.1.4's clients drive it: their request bodies (server/schemas.py, chat/schemas.py)
// and their reading of the answers. One test per point of issue 15 on embed, search, chat and purge.

/** Eight sections: more than LongParser's default top_k of 5. */
const DOC_MD = [
  TOPICS_MD,
  '# Glaciers\n\nCompacted snow becomes ice that flows slowly downhill, carving U-shaped valleys and leaving moraines.\n',
  '# Bee colonies\n\nWorker bees forage for nectar and pollen; the queen lays eggs and drones mate with new queens.\n',
  '# Lighthouses\n\nA rotating lamp and Fresnel lens send a beam far out to sea so ships can find the coast at night.\n',
].join('\n');

/** The keys LongParser's providers read from the environment (its docs/deployment/environment.md). */
const ENV_KEYS = { GROQ_API_KEY: 'gsk-from-env', OPENROUTER_API_KEY: 'or-from-env', GEMINI_API_KEY: 'gm-from-env' };

let server: TestServer;
let provider: GatedChatServer;
let jobId: string;
beforeAll(async () => {
  provider = await startGatedChatServer();
  Object.assign(process.env, ENV_KEYS);
  // No embedding model installed yet: the embed test starts by asking for one that is missing.
  server = await startServer({ settings: { embedding_model: TEST_MODEL, allowed_private_hosts: [new URL(provider.url).host] } });
});
afterAll(async () => {
  for (const k of Object.keys(ENV_KEYS)) delete process.env[k];
  await server?.close();
  await provider?.close();
});

const embed = async (id: string, body: Record<string, unknown>) => {
  const res = await server.call('POST', `/jobs/${id}/embed`, { json: body });
  return { status: res.status, body: await json(res) };
};

describe('LongParser clients: embed, search, chat, session delete and purge', () => {
  it('embed: its body (provider huggingface / sentence-transformers, a hub model name, vector_db) works; 409 until the model is installed; 400 for another vector_db', async () => {
    const job = await finalizedJob(server, 'longparser.md', DOC_MD);
    jobId = job.job_id;
    const body = { provider: 'huggingface', model: 'sentence-transformers/all-MiniLM-L6-v2', vector_db: 'usearch', collection_name: 'longparser_docs' };

    const missing = await embed(jobId, body);
    expect(missing.status).toBe(409);
    expect(missing.body.error.code).toBe('MODEL_NOT_INSTALLED');
    expect(missing.body.error.message).toContain(`POST /models/${TEST_MODEL}/pull`);
    expect(missing.body.error.details).toMatchObject({ id: TEST_MODEL, hub_name: body.model });

    await installTestModel(server.dataDir);
    const chroma = await embed(jobId, { ...body, vector_db: 'chroma' });
    expect(chroma.status).toBe(400);
    expect(chroma.body.error.message).toMatch(/vector_db chroma is not offered.*usearch/);
    expect(chroma.body.error.details[0]).toMatchObject({ field: 'vector_db', allowed: ['usearch'] });
    const unknown = await embed(jobId, { provider: 'huggingface', model: 'BAAI/bge-base-en-v1.5' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('MODEL_NOT_FOUND');
    expect(unknown.body.error.message).toContain('sentence-transformers/all-MiniLM-L6-v2');

    const { accepted, job: done } = await embedAndWait(server, jobId, body);
    expect(accepted).toMatchObject({
      status: 'embedding', job_id: jobId, collection: 'longparser_docs', collection_name: 'longparser_docs', index_version: '1',
      provider: 'local', model: TEST_MODEL, vector_db: 'usearch', chunks: { accepted: 8, to_embed: 8, unchanged: 0 },
    });
    expect(done.status).toBe('indexed');
    // sentence-transformers and the bare model name mean the same local model: the collection takes it.
    const again = await embedAndWait(server, jobId, { provider: 'sentence-transformers', model: 'all-MiniLM-L6-v2', collection_name: 'longparser_docs' });
    expect(again.accepted).toMatchObject({ collection: 'longparser_docs', index_version: '2', model: TEST_MODEL, chunks: { to_embed: 0, unchanged: 8 } });
    expect((await search(server, { job_id: jobId, query: 'ice' })).body.index_version).toBe('2');
  });

  it('search: score is the cosine similarity (0..1) in every mode, fusion only orders (rank_score); metadata and index_version; default top_k 5, 50 accepted', async () => {
    const all = await search(server, { job_id: jobId, query: 'volcanic eruption of lava', mode: 'vector', top_k: 50 });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(8);
    const cosine = new Map<string, number>(all.body.results.map((r: { chunk_id: string; score: number }) => [r.chunk_id, r.score]));
    for (const r of all.body.results) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(r.score).toBeCloseTo(Math.max(0, r.scores.vector), 4);
      expect(r.rank_score).toBe(r.scores.vector);
    }

    // LongParser's body: query, job_id, top_k left to its default of 5, filters {}.
    const hybrid = await search(server, { query: 'volcanic eruption of lava', job_id: jobId, filters: {} });
    expect(hybrid.status).toBe(200);
    expect(hybrid.body).toMatchObject({ query: 'volcanic eruption of lava', model: TEST_MODEL, index_version: '2', total: 5 });
    expect(hybrid.body.results).toHaveLength(5);
    expect(hybrid.body.results[0].section_path).toEqual(['Volcanoes']);
    const ranks = hybrid.body.results.map((r: { rank_score: number }) => r.rank_score);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(ranks[0]).toBeLessThan(0.05); // reciprocal rank fusion: the order, not a relevance
    for (const r of hybrid.body.results) {
      // The same cosine as vector search gives the chunk, although fusion ordered these.
      expect(r.score).toBeCloseTo(cosine.get(r.chunk_id)!, 3);
      expect(r.index_version).toBe('2');
      expect(r.metadata).toMatchObject({
        chunk_id: r.chunk_id, job_id: jobId, chunk_type: r.chunk_type, section_path: r.section_path, page_numbers: r.page_numbers,
        block_ids: r.block_ids, index_version: '2', collection: 'longparser_docs', text_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }

    // A keyword-only search still reports the cosine similarity, re-computed for what BM25 found.
    const keyword = await search(server, { job_id: jobId, query: 'Sicilian', mode: 'keyword' });
    expect(keyword.body.results).toHaveLength(1);
    const [sicilian] = keyword.body.results;
    expect(sicilian.scores).toEqual({ vector: null, keyword: expect.any(Number) });
    expect(sicilian.rank_score).toBe(sicilian.scores.keyword);
    expect(sicilian.score).toBeGreaterThan(0);
    expect(sicilian.score).toBeLessThan(1);
    const vectorOfIt = await search(server, { job_id: jobId, query: 'Sicilian', mode: 'vector', top_k: 50 });
    expect(sicilian.score).toBeCloseTo(vectorOfIt.body.results.find((r: { chunk_id: string }) => r.chunk_id === sicilian.chunk_id).score, 2);

    expect((await search(server, { job_id: jobId, query: 'bees', top_k: 50 })).status).toBe(200);
    expect((await search(server, { job_id: jobId, query: 'bees', index_version: '2' })).status).toBe(200);
    expect((await search(server, { job_id: jobId, query: 'bees', index_version: 2 })).status).toBe(200);
    const stale = await search(server, { job_id: jobId, query: 'bees', index_version: '1' });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'INDEX_MISMATCH', details: { index_version: '2', requested: '1' } });
  });

  it('chat: idempotency_key returns the first answer, also to a repeat sent while it is still answering; groq, openrouter and gemini speak OpenAI with the keys from the environment', async () => {
    const session = await json(await server.call('POST', '/chat/sessions', { json: { job_id: jobId } }));
    const base = `${provider.url}/v1`;
    // LongParser's ChatRequest: session_id, job_id, question, llm_provider, llm_model, top_k, idempotency_key.
    const body = { session_id: session.session_id, job_id: jobId, question: 'What comes out of a volcano when it erupts?', llm_provider: 'groq', top_k: 5, idempotency_key: 'retry-1', base_url: base };
    const first = chat(server, body);
    await provider.arrived(1);
    // The repeat's stream opens (headers) only once the server has it waiting on the first answer.
    const repeat = await fetch(`${server.url}/chat`, {
      method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }),
    });
    expect(repeat.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
    provider.open();
    const answered = await first;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ status: 'complete', llm_provider: 'groq', llm_model: 'openai/gpt-oss-120b', not_found: false });
    expect(answered.body.answer).toBe('Lava and ash come out when it erupts [S1].');
    const streamed = await repeat.text();
    const done = JSON.parse(/event: done\ndata: (.*)\n/.exec(streamed)![1]!);
    expect(done).toMatchObject({ turn_id: answered.body.turn_id, answer: answered.body.answer });
    const later = await chat(server, body);
    expect(later.body).toMatchObject({ turn_id: answered.body.turn_id, answer: answered.body.answer, sources: answered.body.sources });
    expect(provider.requests).toHaveLength(1);
    expect((await json(await server.call('GET', `/chat/sessions/${session.session_id}`))).turn_count).toBe(1);
    // The request went out as LongParser's groq provider sends it: its model, the key from GROQ_API_KEY.
    expect(provider.requests[0]).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer gsk-from-env', body: { model: 'openai/gpt-oss-120b', stream: true } });

    const other = await chat(server, { ...body, idempotency_key: 'retry-2', llm_provider: 'openrouter', llm_model: 'meta/llama-3-8b' });
    expect(other.body.turn_id).not.toBe(answered.body.turn_id);
    expect(provider.requests.at(-1)).toMatchObject({ authorization: 'Bearer or-from-env', body: { model: 'meta/llama-3-8b' } });
    const gemini = await chat(server, { ...body, idempotency_key: undefined, llm_provider: 'gemini' });
    expect(gemini.body).toMatchObject({ llm_provider: 'gemini', llm_model: 'gemini-2.5-flash' });
    expect(provider.requests.at(-1)).toMatchObject({ authorization: 'Bearer gm-from-env', body: { model: 'gemini-2.5-flash' } });
    // A key in the request wins over the environment's.
    await chat(server, { ...body, idempotency_key: undefined, llm_provider: 'groq', api_key: 'gsk-in-body' });
    expect(provider.requests.at(-1)!.authorization).toBe('Bearer gsk-in-body');
    expect(provider.requests).toHaveLength(4);
  });

  it('DELETE /chat/sessions/{id} removes the session and its turns (admin key; 404 after)', async () => {
    const session = await json(await server.call('POST', '/chat/sessions', { json: { job_id: jobId } }));
    await chat(server, { session_id: session.session_id, question: 'How do glaciers move?', llm_provider: 'extractive' });
    const reader = await createKey(server, 'lp-reader', 'reader');
    const refused = await server.call('DELETE', `/chat/sessions/${session.session_id}`, { headers: { 'x-api-key': reader.secret } });
    expect(refused.status).toBe(403);
    const res = await server.call('DELETE', `/chat/sessions/${session.session_id}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ status: 'deleted', session_id: session.session_id });
    expect((await server.call('GET', `/chat/sessions/${session.session_id}`)).status).toBe(404);
    expect((await server.call('DELETE', `/chat/sessions/${session.session_id}`)).status).toBe(404);
    const ask = await chat(server, { session_id: session.session_id, question: 'and bees?', llm_provider: 'extractive' });
    expect(ask.status).toBe(404);
  });

  it('purge a block and a chunk (admin keys only): the text leaves blocks, chunks, the index, the audit and the export; tombstones stay; a restart keeps it gone', async () => {
    const md = DOC_MD;
    const job = await ingest(server, 'purge.md', enc(md));
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const bread = blocks.find((b) => b.text.startsWith('Knead the dough'))!;
    // An edit first, so the audit holds the text in a revision too.
    const edited = await server.call('PATCH', `/jobs/${job.job_id}/blocks/${bread.block_id}`, { json: { version: bread.version, status: 'edited', edited_text: `${bread.text} Secret sourdough starter.` } });
    expect(edited.status).toBe(200);
    expect((await server.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'approve_all_pending' } })).status).toBe(200);
    await embedAndWait(server, job.job_id);
    const audit = async () => JSON.stringify(await json(await server.call('GET', `/jobs/${job.job_id}/audit?limit=500`)));
    expect(await audit()).toContain('Secret sourdough');
    const found = async (query: string) => (await search(server, { job_id: job.job_id, query, mode: 'keyword', top_k: 50 })).body.results.map((r: { text: string }) => r.text).join('\n');
    expect(await found('sourdough knead')).toContain('Knead the dough');
    const versionBefore = (await search(server, { job_id: job.job_id, query: 'x' })).body.index_version;

    const reviewer = await createKey(server, 'lp-reviewer', 'reviewer');
    expect((await server.call('POST', `/jobs/${job.job_id}/blocks/${bread.block_id}/purge`, { headers: { 'x-api-key': reviewer.secret } })).status).toBe(403);
    const purged = await server.call('POST', `/jobs/${job.job_id}/blocks/${bread.block_id}/purge`);
    expect(purged.status).toBe(200);
    const purge = await json(purged);
    expect(purge).toMatchObject({ status: 'purged', block_id: bread.block_id, tombstone_revision_id: expect.any(String) });
    expect(purge.chunks_purged.length + purge.chunks_trimmed.length).toBe(1);
    expect((await server.call('POST', `/jobs/${job.job_id}/blocks/${bread.block_id}/purge`)).status).toBe(404);

    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    const chess = chunks.find((c) => c.section_path[0] === 'Chess openings')!;
    const purgedChunk = await server.call('POST', `/jobs/${job.job_id}/chunks/${chess.chunk_id}/purge`);
    expect(purgedChunk.status).toBe(200);
    expect(await json(purgedChunk)).toMatchObject({ status: 'purged', chunk_id: chess.chunk_id, tombstone_revision_id: expect.any(String) });

    const checkGone = async () => {
      // The block's text is gone from everywhere Lectern keeps it.
      expect((await listAll(server, `/jobs/${job.job_id}/blocks`)).some((b) => b.block_id === bread.block_id)).toBe(false);
      const left = await listAll(server, `/jobs/${job.job_id}/chunks`);
      expect(JSON.stringify(left)).not.toMatch(/Knead the dough|sourdough/);
      expect(await found('sourdough knead dough')).not.toMatch(/Knead|sourdough/);
      const trail = await audit();
      expect(trail).not.toMatch(/Knead the dough|sourdough/);
      expect(trail).toContain('[PURGED] text_hash=');
      expect(trail).toContain('ADMIN PURGE');
      // The purged chunk (its blocks stay, as in LongParser) is gone from the chunks, the index and its own revisions.
      expect(left.some((c) => c.chunk_id === chess.chunk_id)).toBe(false);
      expect(await found('Sicilian gambit')).not.toContain('Sicilian');
      const zip = unzipSync(new Uint8Array(await (await server.call('GET', `/jobs/${job.job_id}/export`)).arrayBuffer()));
      for (const [name, data] of Object.entries(zip)) {
        // The uploaded original is kept as uploaded; everything Lectern wrote has lost the text.
        if (!name.includes('original-')) expect(strFromU8(data), name).not.toMatch(/Knead the dough|sourdough/);
        if (name.startsWith('chunks')) expect(strFromU8(data), name).not.toContain(chess.chunk_id);
      }
    };
    await checkGone();
    expect((await search(server, { job_id: job.job_id, query: 'x' })).body.index_version).not.toBe(versionBefore);

    const dataDir = server.dataDir;
    await server.close();
    server = await startServer({ dataDir, settings: { embedding_model: TEST_MODEL, allowed_private_hosts: [new URL(provider.url).host] } });
    await checkGone();
  });
});

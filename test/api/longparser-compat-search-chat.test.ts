import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_URL, providerKeysFrom, remoteEndpoint } from '../../server/core/chat/chat-providers.js';
import { openAiChatUrl } from '../../server/core/chat/remote-chat.js';
import { enc, startServer, type TestServer } from '../helpers/app.js';
import { installTestModel, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { startGatedChatServer, type GatedChatServer } from '../helpers/gated-chat-server.js';
import { createKey } from '../helpers/keys-cli.js';

// Driven as LongParser 0.1.4's clients drive it: `requests` with X-API-Key, its request bodies (server/schemas.py,
// chat/schemas.py: no Lectern-only field gets the work done) and its reading of the answers, errors from
// `detail`. Where a provider must be a local server, the deployment points it there through the environment
// (GROQ_BASE_URL, as the groq SDK under LongParser reads it; OPENROUTER_BASE_URL and GEMINI_BASE_URL, Lectern's
// names for the two LongParser does not let move), never through the request. One test per point of
// LongParser compatibility on embed, search, chat and purge.

/** Eight sections: more than LongParser's default top_k of 5. */
const DOC_MD = [
  TOPICS_MD,
  '# Glaciers\n\nCompacted snow becomes ice that flows slowly downhill, carving U-shaped valleys and leaving moraines.\n',
  '# Bee colonies\n\nWorker bees forage for nectar and pollen; the queen lays eggs and drones mate with new queens.\n',
  '# Lighthouses\n\nA rotating lamp and Fresnel lens send a beam far out to sea so ships can find the coast at night.\n',
].join('\n');

let server: TestServer;
let provider: GatedChatServer;
let jobId: string;
/**
 * The deployment's environment: the keys LongParser's providers read (GOOGLE_API_KEY for Gemini, as its
 * .env.example has it) and the providers' addresses moved to the local OpenAI-protocol server.
 */
let deployment: Record<string, string>;
const settings = () => ({ embedding_model: TEST_MODEL, allowed_private_hosts: [new URL(provider.url).host] });
beforeAll(async () => {
  provider = await startGatedChatServer();
  deployment = {
    GROQ_API_KEY: 'gsk-from-env',
    OPENROUTER_API_KEY: 'or-from-env',
    GOOGLE_API_KEY: 'google-from-env',
    GROQ_BASE_URL: provider.url,
    OPENROUTER_BASE_URL: `${provider.url}/openrouter/api/v1`,
    GEMINI_BASE_URL: `${provider.url}/gemini/v1beta/openai`,
  };
  Object.assign(process.env, deployment);
  // No embedding model installed yet: the embed test starts by asking for one that is missing.
  server = await startServer({ settings: settings() });
});
afterAll(async () => {
  for (const k of Object.keys(deployment ?? {})) delete process.env[k];
  await server?.close();
  await provider?.close();
});

/** requests.request(method, base + path, headers={"X-API-Key": key}, json=body) */
function lp(method: string, path: string, body?: unknown, key = server.key): Promise<Response> {
  const headers: Record<string, string> = { 'X-API-Key': key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}
/** The status and JSON body of a call, as a client reads both. */
async function call(
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<{ status: number; body: any }> {
  const res = await lp(method, path, body, key);
  return { status: res.status, body: await res.json() };
}
const jobStatus = async (id: string) => (await call('GET', `/jobs/${id}`)).body.status as string;

/** POST /jobs with files={"file": (name, bytes)}; then poll GET /jobs/{id} until review can start. */
async function upload(name: string, text: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([enc(text) as Uint8Array<ArrayBuffer>], { type: 'text/markdown' }), name);
  const res = await fetch(`${server.url}/jobs`, { method: 'POST', headers: { 'X-API-Key': server.key }, body: form });
  expect(res.status).toBe(201);
  const { job_id: id } = await res.json();
  await expect.poll(() => jobStatus(id), { timeout: 120_000, interval: 50 }).toBe('ready_for_review');
  return id;
}

/** Uploaded and finalized with LongParser's FinalizeRequest, everything pending approved. */
async function finalized(name: string, text: string): Promise<string> {
  const id = await upload(name, text);
  const fin = await call('POST', `/jobs/${id}/finalize`, { finalize_policy: 'approve_all_pending' });
  expect(fin.status, fin.body.detail).toBe(200);
  return id;
}

/** POST /jobs/{id}/embed with EmbedRequest, then poll the job until it is indexed. */
async function embedAndWait(id: string, body: Record<string, unknown>) {
  const accepted = await call('POST', `/jobs/${id}/embed`, body);
  expect(accepted.status, accepted.body.detail).toBe(202);
  await expect.poll(() => jobStatus(id), { timeout: 120_000, interval: 50 }).toBe('indexed');
  return accepted.body;
}

/** EmbedRequest as pydantic dumps it. */
const EMBED = {
  provider: 'huggingface',
  model: 'sentence-transformers/all-MiniLM-L6-v2',
  vector_db: 'usearch',
  collection_name: 'longparser_docs',
};
/** SearchRequest as pydantic dumps it: top_k left to its default, filters {}, no index_version. */
const searchBody = (id: string, query: string, o: Record<string, unknown> = {}) => ({
  job_id: id,
  query,
  filters: {},
  ...o,
});
/** Every block of a job, LongParser's list read at its largest page. */
const allOf = async (id: string, what: 'blocks' | 'chunks'): Promise<any[]> =>
  (await call('GET', `/jobs/${id}/${what}?limit=500`)).body;

describe('the hosted providers LongParser names: their known addresses and the keys from the environment', () => {
  it("asks OpenRouter, Groq and Gemini at their known addresses with LongParser's default models; GOOGLE_API_KEY serves Gemini", () => {
    const none = providerKeysFrom({});
    // OpenRouter's address is the one LongParser's llm_chain.py fixes; Groq's is the groq SDK's root and its
    // /openai/v1; Gemini's is Google's OpenAI-compatible endpoint.
    expect(remoteEndpoint({ provider: 'openrouter' }, none)).toEqual({
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: undefined,
      model: 'openai/gpt-5.3',
      sdkBase: true,
    });
    expect(remoteEndpoint({ provider: 'groq' }, none)).toEqual({
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: undefined,
      model: 'openai/gpt-oss-120b',
      sdkBase: true,
    });
    expect(remoteEndpoint({ provider: 'gemini' }, none)).toEqual({
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      apiKey: undefined,
      model: 'gemini-2.5-flash',
      sdkBase: true,
    });
    expect(DEFAULT_BASE_URL).toMatchObject({
      openrouter: 'https://openrouter.ai/api/v1',
      groq: 'https://api.groq.com/openai/v1',
      gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
    });
    // And the addresses the answers are asked at: the chat path right below each (Gemini's is not under a /v1).
    expect(openAiChatUrl(remoteEndpoint({ provider: 'openrouter' }, none))).toBe(
      'https://openrouter.ai/api/v1/chat/completions',
    );
    expect(openAiChatUrl(remoteEndpoint({ provider: 'groq' }, none))).toBe(
      'https://api.groq.com/openai/v1/chat/completions',
    );
    expect(openAiChatUrl(remoteEndpoint({ provider: 'gemini' }, none))).toBe(
      'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions',
    );
    // A base_url in a request keeps Lectern's reading: /v1 added to a server's bare address.
    expect(
      openAiChatUrl(remoteEndpoint({ provider: 'openai', base_url: 'http://127.0.0.1:8080', model: 'm' }, none)),
    ).toBe('http://127.0.0.1:8080/v1/chat/completions');

    // Keys: LongParser's variables; Gemini's from GOOGLE_API_KEY when GEMINI_API_KEY is not set, GEMINI_API_KEY first.
    const env = providerKeysFrom({
      GOOGLE_API_KEY: 'google-key',
      OPENROUTER_API_KEY: ' or-key ',
      GROQ_API_KEY: 'gsk',
      OPENAI_API_KEY: 'sk',
    });
    expect(env.keys).toEqual({ gemini: 'google-key', openrouter: 'or-key', groq: 'gsk', openai: 'sk' });
    expect(remoteEndpoint({ provider: 'gemini' }, env).apiKey).toBe('google-key');
    expect(providerKeysFrom({ GOOGLE_API_KEY: 'google-key', GEMINI_API_KEY: 'gemini-key' }).keys?.gemini).toBe(
      'gemini-key',
    );
    expect(providerKeysFrom({ GOOGLE_API_KEY: '  ' }).keys).toEqual({});

    // Addresses moved by the environment; the groq SDK's variables name Groq's root, as its SDK reads them.
    const moved = providerKeysFrom({
      GROQ_API_BASE: 'http://gateway:8080/',
      OPENAI_BASE_URL: 'http://gateway:8080/v1',
      OPENROUTER_BASE_URL: 'http://or.local/api/v1',
    });
    expect(moved.baseUrls).toEqual({
      groq: 'http://gateway:8080/openai/v1',
      openai: 'http://gateway:8080/v1',
      openrouter: 'http://or.local/api/v1',
    });
    expect(remoteEndpoint({ provider: 'groq' }, moved).baseUrl).toBe('http://gateway:8080/openai/v1');
    expect(remoteEndpoint({ provider: 'gemini' }, moved).baseUrl).toBe(DEFAULT_BASE_URL.gemini);
    expect(providerKeysFrom({ OPENAI_API_BASE: 'http://a/v1' }).baseUrls?.openai).toBe('http://a/v1');
    // A request's own choice wins over the environment (Lectern's fields, for its own clients).
    expect(
      remoteEndpoint(
        { provider: 'groq', base_url: 'http://b/v1', api_key: 'k', model: 'm' },
        { keys: env.keys, baseUrls: moved.baseUrls },
      ),
    ).toEqual({ baseUrl: 'http://b/v1', apiKey: 'k', model: 'm', sdkBase: false });
  });
});

describe('LongParser clients: embed, search, chat, session delete and purge', () => {
  it('embed: its body (provider huggingface / sentence-transformers, a hub model name, vector_db) works; 409 until the model is installed; 400 for another vector_db', async () => {
    jobId = await finalized('longparser.md', DOC_MD);

    const missing = await call('POST', `/jobs/${jobId}/embed`, EMBED);
    expect(missing.status).toBe(409);
    // What a FastAPI client prints: the message, with the way to get the model.
    expect(missing.body.detail).toContain(`POST /models/${TEST_MODEL}/pull`);

    await installTestModel(server.dataDir);
    const chroma = await call('POST', `/jobs/${jobId}/embed`, { ...EMBED, vector_db: 'chroma' });
    expect(chroma.status).toBe(400);
    expect(chroma.body.detail).toMatch(/vector_db chroma is not offered.*usearch/);
    // In the catalog but not installed: how to get it, not "unknown".
    const notPulled = await call('POST', `/jobs/${jobId}/embed`, { ...EMBED, model: 'BAAI/bge-base-en-v1.5' });
    expect(notPulled.status).toBe(409);
    expect(notPulled.body.detail).toContain('lectern models pull bge-base-en-v1.5-int8');
    expect(notPulled.body.detail).toContain('POST /models/bge-base-en-v1.5-int8/pull');
    const unknown = await call('POST', `/jobs/${jobId}/embed`, { ...EMBED, model: 'BAAI/bge-large-en-v1.5' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain('BAAI/bge-large-en-v1.5');
    expect(unknown.body.detail).toContain('sentence-transformers/all-MiniLM-L6-v2');
    expect(unknown.body.detail).toContain('BAAI/bge-base-en-v1.5');

    const accepted = await embedAndWait(jobId, EMBED);
    expect(accepted).toMatchObject({
      status: 'embedding',
      job_id: jobId,
      collection: 'longparser_docs',
      index_version: '1',
      provider: 'local',
      model: TEST_MODEL,
      vector_db: 'usearch',
      chunks: { accepted: 8, to_embed: 8, unchanged: 0 },
    });
    // sentence-transformers and the bare model name mean the same local model: the collection takes it.
    const again = await embedAndWait(jobId, { ...EMBED, provider: 'sentence-transformers', model: 'all-MiniLM-L6-v2' });
    expect(again).toMatchObject({
      collection: 'longparser_docs',
      index_version: '2',
      model: TEST_MODEL,
      chunks: { to_embed: 0, unchanged: 8 },
    });
    expect((await call('POST', '/search', searchBody(jobId, 'ice'))).body.index_version).toBe('2');
  });

  it('search: score is the cosine similarity (0..1) in every mode, fusion only orders (rank_score); metadata and index_version; default top_k 5, 50 accepted', async () => {
    // `mode` is Lectern's (LongParser searches by vector only): here only to show `score` means the same in each.
    const all = await call(
      'POST',
      '/search',
      searchBody(jobId, 'volcanic eruption of lava', { mode: 'vector', top_k: 50 }),
    );
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(8);
    const cosine = new Map<string, number>(
      all.body.results.map((r: { chunk_id: string; score: number }) => [r.chunk_id, r.score]),
    );
    for (const r of all.body.results) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(r.score).toBeCloseTo(Math.max(0, r.scores.vector), 4);
      expect(r.rank_score).toBe(r.scores.vector);
    }

    // LongParser's body as it is: query, job_id, top_k left to its default of 5, filters {}.
    const hybrid = await call('POST', '/search', searchBody(jobId, 'volcanic eruption of lava'));
    expect(hybrid.status).toBe(200);
    expect(hybrid.body).toMatchObject({
      query: 'volcanic eruption of lava',
      model: TEST_MODEL,
      index_version: '2',
      total: 5,
    });
    expect(hybrid.body.results).toHaveLength(5);
    expect(hybrid.body.results[0].section_path).toEqual(['Volcanoes']);
    const ranks = hybrid.body.results.map((r: { rank_score: number }) => r.rank_score);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    // Fused and scaled (0.4 × BM25 / the best BM25 + 0.6 × cosine / the best cosine): the best hit holds both lists' best.
    expect(ranks[0]).toBeCloseTo(1, 6);
    expect(ranks.at(-1)).toBeGreaterThan(0);
    for (const r of hybrid.body.results) {
      // The same cosine as vector search gives the chunk, although fusion ordered these.
      expect(r.score).toBeCloseTo(cosine.get(r.chunk_id)!, 3);
      expect(r.index_version).toBe('2');
      expect(r.metadata).toMatchObject({
        chunk_id: r.chunk_id,
        job_id: jobId,
        chunk_type: r.chunk_type,
        section_path: r.section_path,
        page_numbers: r.page_numbers,
        block_ids: r.block_ids,
        index_version: '2',
        collection: 'longparser_docs',
        text_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
    // LongParser's filters: {"chunk_type": ...}.
    const sections = await call(
      'POST',
      '/search',
      searchBody(jobId, 'bees', { filters: { chunk_type: hybrid.body.results[0].chunk_type } }),
    );
    expect(sections.body.results.length).toBeGreaterThan(0);
    expect(
      sections.body.results.every((r: { chunk_type: string }) => r.chunk_type === hybrid.body.results[0].chunk_type),
    ).toBe(true);

    // A keyword-only search still reports the cosine similarity, re-computed for what BM25 found.
    const keyword = await call('POST', '/search', searchBody(jobId, 'Sicilian', { mode: 'keyword' }));
    expect(keyword.body.results).toHaveLength(1);
    const [sicilian] = keyword.body.results;
    expect(sicilian.scores).toEqual({ vector: null, keyword: expect.any(Number) });
    expect(sicilian.rank_score).toBe(sicilian.scores.keyword);
    expect(sicilian.score).toBeGreaterThan(0);
    expect(sicilian.score).toBeLessThan(1);
    const vectorOfIt = await call('POST', '/search', searchBody(jobId, 'Sicilian', { mode: 'vector', top_k: 50 }));
    expect(sicilian.score).toBeCloseTo(
      vectorOfIt.body.results.find((r: { chunk_id: string }) => r.chunk_id === sicilian.chunk_id).score,
      2,
    );

    const fifty = await call('POST', '/search', searchBody(jobId, 'bees', { top_k: 50 }));
    expect(fifty.status).toBe(200);
    expect(fifty.body.total).toBe(8);
    expect((await call('POST', '/search', searchBody(jobId, 'bees', { index_version: '2' }))).status).toBe(200);
    expect((await call('POST', '/search', searchBody(jobId, 'bees', { index_version: 2 }))).status).toBe(200);
    const stale = await call('POST', '/search', searchBody(jobId, 'bees', { index_version: '1' }));
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatch(/index/i);
  });

  it("chat: idempotency_key returns the first answer, also to a repeat sent while it is still answering; groq, openrouter and gemini speak OpenAI at the deployment's addresses with the keys from the environment", async () => {
    const created = await call('POST', '/chat/sessions', { job_id: jobId });
    expect(created.status).toBe(201);
    const sessionId: string = created.body.session_id;
    // LongParser's ChatRequest fields, llm_model left out for the provider's default.
    const body: Record<string, unknown> = {
      session_id: sessionId,
      job_id: jobId,
      question: 'What comes out of a volcano when it erupts?',
      llm_provider: 'groq',
      top_k: 5,
      idempotency_key: 'retry-1',
      require_approval: false,
    };
    const first = call('POST', '/chat', body);
    // The provider has the question (or the chat answered without asking it: a failure to show, not to wait out).
    await Promise.race([
      provider.arrived(1),
      first.then((r) => expect.fail(`answered ${r.status} before asking the provider: ${JSON.stringify(r.body)}`)),
    ]);
    // A repeat sent while the first is provably still being answered. LongParser has no streaming: this one
    // streams (Lectern's `stream`) only so that its headers show the server has it, waiting on the first answer.
    const repeat = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { 'X-API-Key': server.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(repeat.status).toBe(200);
    expect(provider.requests).toHaveLength(1);
    provider.open();
    const answered = await first;
    expect(answered.status).toBe(200);
    // ChatResponse: session_id, turn_id, answer, sources[{chunk_id, score, text, page_numbers}], status, thread_id.
    expect(answered.body).toMatchObject({
      session_id: sessionId,
      turn_id: expect.any(String),
      status: 'complete',
      thread_id: null,
    });
    expect(answered.body.answer).toBe('Lava and ash come out when it erupts [S1].');
    expect(answered.body.sources[0]).toMatchObject({
      chunk_id: expect.any(String),
      score: expect.any(Number),
      text: expect.stringContaining('lava'),
      page_numbers: [1],
    });
    const streamed = await repeat.text();
    const done = JSON.parse(/event: done\ndata: (.*)\n/.exec(streamed)![1]!);
    expect(done).toMatchObject({ turn_id: answered.body.turn_id, answer: answered.body.answer });
    const later = await call('POST', '/chat', body);
    expect(later.body).toMatchObject({
      turn_id: answered.body.turn_id,
      answer: answered.body.answer,
      sources: answered.body.sources,
    });
    expect(provider.requests).toHaveLength(1);
    expect((await call('GET', `/chat/sessions/${sessionId}`)).body.turn_count).toBe(1);
    // Sent as the groq SDK sends it from GROQ_BASE_URL (its root, then /openai/v1), with LongParser's model
    // for groq and the key from GROQ_API_KEY.
    expect(provider.requests[0]).toMatchObject({
      path: '/openai/v1/chat/completions',
      authorization: 'Bearer gsk-from-env',
      body: { model: 'openai/gpt-oss-120b', stream: true },
    });

    // The same question in LongParser's docs' spelling: the options inside `config`.
    const other = await call('POST', '/chat', {
      ...body,
      idempotency_key: 'retry-2',
      llm_provider: undefined,
      top_k: undefined,
      config: { llm_provider: 'openrouter', llm_model: 'meta/llama-3-8b', top_k: 3 },
    });
    expect(other.status).toBe(200);
    expect(other.body.turn_id).not.toBe(answered.body.turn_id);
    expect(provider.requests.at(-1)).toMatchObject({
      path: '/openrouter/api/v1/chat/completions',
      authorization: 'Bearer or-from-env',
      body: { model: 'meta/llama-3-8b' },
    });
    const gemini = await call('POST', '/chat', { ...body, idempotency_key: undefined, llm_provider: 'gemini' });
    expect(gemini.status).toBe(200);
    expect(gemini.body.answer).toBe(answered.body.answer);
    // GOOGLE_API_KEY (LongParser's .env.example for gemini) serves when GEMINI_API_KEY is not set.
    expect(provider.requests.at(-1)).toMatchObject({
      path: '/gemini/v1beta/openai/chat/completions',
      authorization: 'Bearer google-from-env',
      body: { model: 'gemini-2.5-flash' },
    });
    expect(provider.requests).toHaveLength(3);
    expect((await call('GET', `/chat/sessions/${sessionId}`)).body.turn_count).toBe(3);
  });

  it('DELETE /chat/sessions/{id} removes the session and its turns (admin key; 404 after)', async () => {
    const { body: session } = await call('POST', '/chat/sessions', { job_id: jobId });
    // `extractive`, Lectern's model-free provider, writes the one turn this test needs.
    expect(
      (
        await call('POST', '/chat', {
          session_id: session.session_id,
          job_id: jobId,
          question: 'How do glaciers move?',
          llm_provider: 'extractive',
        })
      ).status,
    ).toBe(200);
    const reader = await createKey(server, 'lp-reader', 'reader');
    const refused = await call('DELETE', `/chat/sessions/${session.session_id}`, undefined, reader.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.detail.length).toBeGreaterThan(0);
    const res = await call('DELETE', `/chat/sessions/${session.session_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'deleted', session_id: session.session_id });
    const gone = await call('GET', `/chat/sessions/${session.session_id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/session/i);
    expect((await call('DELETE', `/chat/sessions/${session.session_id}`)).status).toBe(404);
    const ask = await call('POST', '/chat', {
      session_id: session.session_id,
      job_id: jobId,
      question: 'and bees?',
      llm_provider: 'extractive',
    });
    expect(ask.status).toBe(404);
    expect(ask.body.detail).toMatch(/session/i);
  });

  it('purge a block and a chunk (admin keys only): the text leaves blocks, chunks, the index, the audit and the export; tombstones stay; a restart keeps it gone', async () => {
    const id = await upload('purge.md', DOC_MD);
    const bread = (await allOf(id, 'blocks')).find((b) => b.text.startsWith('Knead the dough'))!;
    // An edit first (BlockReviewUpdate), so the audit holds the text in a revision too.
    const edited = await call('PATCH', `/jobs/${id}/blocks/${bread.block_id}`, {
      status: 'edited',
      edited_text: `${bread.text} Secret sourdough starter.`,
      edited_type: null,
      reviewer_note: '',
      version: bread.version,
    });
    expect(edited.status).toBe(200);
    expect((await call('POST', `/jobs/${id}/finalize`, { finalize_policy: 'approve_all_pending' })).status).toBe(200);
    await embedAndWait(id, EMBED);
    const audit = async () => JSON.stringify((await call('GET', `/jobs/${id}/audit?limit=500`)).body);
    expect(await audit()).toContain('Secret sourdough');
    const found = async (query: string) =>
      (await call('POST', '/search', searchBody(id, query, { mode: 'keyword', top_k: 50 }))).body.results
        .map((r: { text: string }) => r.text)
        .join('\n');
    expect(await found('sourdough knead')).toContain('Knead the dough');
    const versionBefore = (await call('POST', '/search', searchBody(id, 'x'))).body.index_version;

    const reviewer = await createKey(server, 'lp-reviewer', 'reviewer');
    const refused = await call('POST', `/jobs/${id}/blocks/${bread.block_id}/purge`, undefined, reviewer.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.detail.length).toBeGreaterThan(0);
    const purge = await call('POST', `/jobs/${id}/blocks/${bread.block_id}/purge`);
    expect(purge.status).toBe(200);
    expect(purge.body).toMatchObject({
      status: 'purged',
      block_id: bread.block_id,
      tombstone_revision_id: expect.any(String),
    });
    expect(purge.body.chunks_purged.length + purge.body.chunks_trimmed.length).toBe(1);
    const twice = await call('POST', `/jobs/${id}/blocks/${bread.block_id}/purge`);
    expect(twice.status).toBe(404);
    expect(twice.body.detail).toMatch(/block/i);

    const chess = (await allOf(id, 'chunks')).find((c) => c.section_path[0] === 'Chess openings')!;
    const purgedChunk = await call('POST', `/jobs/${id}/chunks/${chess.chunk_id}/purge`);
    expect(purgedChunk.status).toBe(200);
    expect(purgedChunk.body).toMatchObject({
      status: 'purged',
      chunk_id: chess.chunk_id,
      tombstone_revision_id: expect.any(String),
    });

    const checkGone = async () => {
      // The block's text is gone from everywhere Lectern keeps it.
      expect((await allOf(id, 'blocks')).some((b) => b.block_id === bread.block_id)).toBe(false);
      const left = await allOf(id, 'chunks');
      expect(JSON.stringify(left)).not.toMatch(/Knead the dough|sourdough/);
      expect(await found('sourdough knead dough')).not.toMatch(/Knead|sourdough/);
      const trail = await audit();
      expect(trail).not.toMatch(/Knead the dough|sourdough/);
      expect(trail).toContain('[PURGED] text_hash=');
      expect(trail).toContain('ADMIN PURGE');
      // The purged chunk (its blocks stay, as in LongParser) is gone from the chunks, the index and its own revisions.
      expect(left.some((c) => c.chunk_id === chess.chunk_id)).toBe(false);
      expect(await found('Sicilian gambit')).not.toContain('Sicilian');
      const zip = unzipSync(new Uint8Array(await (await lp('GET', `/jobs/${id}/export`)).arrayBuffer()));
      for (const [name, data] of Object.entries(zip)) {
        // The uploaded original is kept as uploaded; everything Lectern wrote has lost the text.
        if (!name.includes('original-')) expect(strFromU8(data), name).not.toMatch(/Knead the dough|sourdough/);
        if (name.startsWith('chunks')) expect(strFromU8(data), name).not.toContain(chess.chunk_id);
      }
    };
    await checkGone();
    expect((await call('POST', '/search', searchBody(id, 'x'))).body.index_version).not.toBe(versionBefore);

    const dataDir = server.dataDir;
    await server.close();
    server = await startServer({ dataDir, settings: settings() });
    await checkGone();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, installTestModel, search, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { startEmbeddingServer, type ProtocolServer } from '../helpers/embedding-servers.js';
import { listenOnLoopback, readJson, type LoopbackServer } from '../helpers/loopback-server.js';

let server: TestServer;
let openai: ProtocolServer;
let ollama: ProtocolServer;
/** Another Ollama serving a different "all-minilm": 3-d vectors. */
let small: LoopbackServer;
const smallSeen: unknown[] = [];
/** A loopback listener nobody allowed: an embed naming it must not reach it. */
let stranger: LoopbackServer;
beforeAll(async () => {
  openai = await startEmbeddingServer('openai', { apiKey: 'sk-test-123', model: 'text-embedding-minilm' });
  ollama = await startEmbeddingServer('ollama', { model: 'all-minilm' });
  small = await listenOnLoopback((req, res) => {
    void readJson(req).then((body: { input: string[] }) => {
      smallSeen.push(body);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ embeddings: body.input.map(() => [1, 0, 0]) }));
    });
  });
  stranger = await listenOnLoopback((_req, res) => res.writeHead(200).end());
  // Outbound requests may reach the provider servers and port 9 (where nothing listens), no other loopback port.
  const allowed = [openai.url, ollama.url, small.url].map((u) => new URL(u).host).concat('127.0.0.1:9');
  server = await startServer({ settings: { embedding_model: TEST_MODEL, allowed_private_hosts: allowed } });
  await installTestModel(server.dataDir);
});
afterAll(async () => {
  await server.close();
  await openai.close();
  await ollama.close();
  await small.close();
  await stranger.close();
});

describe('remote embedding providers', () => {
  it('openai: embeds through /v1/embeddings with the bearer key, and search embeds the query there too', async () => {
    const job = await finalizedJob(server, 'openai.md', TOPICS_MD);
    const { accepted, job: done } = await embedAndWait(server, job.job_id, {
      provider: 'openai',
      model: 'text-embedding-minilm',
      base_url: `${openai.url}/v1`,
      api_key: 'sk-test-123',
      collection_name: 'remote-openai',
    });
    expect(accepted).toMatchObject({
      provider: 'openai',
      model: 'text-embedding-minilm',
      dimensions: 384,
      chunks: { to_embed: 5 },
    });
    expect(done.status).toBe('indexed');
    const embedCalls = openai.requests.filter((r) => Array.isArray(r.body.input) && r.body.input.length === 5);
    expect(embedCalls).toHaveLength(1);
    expect(embedCalls[0]).toMatchObject({
      path: '/v1/embeddings',
      authorization: 'Bearer sk-test-123',
      body: { model: 'text-embedding-minilm' },
    });

    const hit = await search(server, {
      collection_name: 'remote-openai',
      query: 'how do plants make sugar from light',
      mode: 'vector',
      api_key: 'sk-test-123',
    });
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({ provider: 'openai', model: 'text-embedding-minilm' });
    expect(hit.body.results[0].section_path).toEqual(['Photosynthesis']);
    expect(openai.requests.at(-1)!.body.input).toEqual(['how do plants make sugar from light']);

    const noKey = await search(server, { collection_name: 'remote-openai', query: 'lava', mode: 'vector' });
    expect(noKey.status).toBe(502);
    expect(noKey.body.error.code).toBe('EMBEDDING_PROVIDER_FAILED');
    // Keyword search needs no embedding, so it works without the key: BM25 orders, and no similarity is known.
    const keyword = await search(server, { collection_name: 'remote-openai', query: 'lava', mode: 'keyword' });
    expect(keyword.body.total).toBe(1);
    expect(keyword.body.results[0].score).toBeNull();
  });

  it('ollama: embeds through /api/embed, base URL without /v1', async () => {
    const job = await finalizedJob(server, 'ollama.md', TOPICS_MD);
    const { accepted } = await embedAndWait(server, job.job_id, {
      provider: 'ollama',
      model: 'all-minilm',
      base_url: ollama.url,
    });
    expect(accepted).toMatchObject({ provider: 'ollama', model: 'all-minilm', dimensions: 384 });
    expect(ollama.requests.every((r) => r.path === '/api/embed' && r.body.model === 'all-minilm')).toBe(true);
    const hit = await search(server, { job_id: job.job_id, query: 'king pawn defence', mode: 'hybrid', top_k: 1 });
    expect(hit.body.results[0].section_path).toEqual(['Chess openings']);
  });

  it('refuses to mix models in one collection (409 INDEX_MISMATCH) and reports a failing provider (502)', async () => {
    const local = await finalizedJob(server, 'local.md', TOPICS_MD);
    await embedAndWait(server, local.job_id, { collection_name: 'local-only' });
    const other = await finalizedJob(server, 'other.md', TOPICS_MD);
    const mixed = await server.call('POST', `/jobs/${other.job_id}/embed`, {
      json: { provider: 'ollama', model: 'all-minilm', base_url: ollama.url, collection_name: 'local-only' },
    });
    expect(mixed.status).toBe(409);
    const body = await json(mixed);
    expect(body.error).toMatchObject({
      code: 'INDEX_MISMATCH',
      details: { collection_name: 'local-only', provider: 'local', model: TEST_MODEL, dimensions: 384 },
    });
    expect((await server.call('GET', `/jobs/${other.job_id}`)).status).toBe(200);
    expect((await json(await server.call('GET', `/jobs/${other.job_id}`))).status).toBe('finalized');

    const wrongModel = await server.call('POST', `/jobs/${other.job_id}/embed`, {
      json: { provider: 'ollama', model: 'no-such', base_url: ollama.url },
    });
    expect(wrongModel.status).toBe(502);
    expect((await json(wrongModel)).error.code).toBe('EMBEDDING_PROVIDER_FAILED');
    const unreachable = await server.call('POST', `/jobs/${other.job_id}/embed`, {
      json: { provider: 'ollama', model: 'all-minilm', base_url: 'http://127.0.0.1:9' },
    });
    expect(unreachable.status).toBe(502);
    const noModel = await server.call('POST', `/jobs/${other.job_id}/embed`, {
      json: { provider: 'openai', base_url: openai.url },
    });
    expect(noModel.status).toBe(400);
  });

  it('refuses (409) a model of the same name that answers with another dimension, before accepting the job', async () => {
    const first = await finalizedJob(server, 'dims-a.md', TOPICS_MD);
    await embedAndWait(server, first.job_id, {
      provider: 'ollama',
      model: 'all-minilm',
      base_url: ollama.url,
      collection_name: 'ollama-384',
    });
    const second = await finalizedJob(server, 'dims-b.md', TOPICS_MD);
    const res = await server.call('POST', `/jobs/${second.job_id}/embed`, {
      json: { provider: 'ollama', model: 'all-minilm', base_url: small.url, collection_name: 'ollama-384' },
    });
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.error).toMatchObject({
      code: 'INDEX_MISMATCH',
      details: { collection_name: 'ollama-384', dimensions: 384, requested: { dimensions: 3 } },
    });
    expect(body.error.message).toContain('384 dimensions, not 3');
    expect(smallSeen).toHaveLength(1);
    expect((await json(await server.call('GET', `/jobs/${second.job_id}`))).status).toBe('finalized');
    expect((await search(server, { collection_name: 'ollama-384', query: 'lava', mode: 'keyword' })).body.total).toBe(
      1,
    );
  });

  it('a base_url on a host not allowed is 403 URL_NOT_ALLOWED and nothing reaches it; a malformed one is 400; the job stays finalized', async () => {
    const job = await finalizedJob(server, 'refused.md', TOPICS_MD);
    const port = new URL(stranger.url).port;
    for (const [provider, base_url] of [
      ['ollama', stranger.url],
      ['openai', `${stranger.url}/v1`],
      ['ollama', `http://127.1:${port}`],
      ['ollama', `http://[::ffff:127.0.0.1]:${port}`],
      ['ollama', `http://localhost:${port}`],
    ]) {
      const res = await server.call('POST', `/jobs/${job.job_id}/embed`, {
        json: { provider, model: 'all-minilm', base_url, api_key: provider === 'openai' ? 'sk-test-123' : undefined },
      });
      expect(res.status, base_url).toBe(403);
      expect((await json(res)).error.code).toBe('URL_NOT_ALLOWED');
    }
    expect(stranger.connections()).toBe(0);
    for (const base_url of ['not a url', 'file:///etc/passwd', `http://user:pw@${new URL(ollama.url).host}`]) {
      const res = await server.call('POST', `/jobs/${job.job_id}/embed`, {
        json: { provider: 'ollama', model: 'all-minilm', base_url },
      });
      expect(res.status, base_url).toBe(400);
      expect((await json(res)).error.code).toBe('URL_INVALID');
    }
    expect((await json(await server.call('GET', `/jobs/${job.job_id}`))).status).toBe('finalized');
  });
});

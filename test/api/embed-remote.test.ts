import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestServer } from '../helpers/app.js';
import {
  embedAndWait,
  finalizedJob,
  startServerWithModel,
  search,
  TEST_MODEL,
  TOPICS_MD,
} from '../helpers/embed-flow.js';
import { startEmbeddingServer } from '../helpers/embedding-servers.js';
import { listenOnLoopback, readJson, type LoopbackServer } from '../helpers/loopback-server.js';
import type { ProviderServer } from '../helpers/provider-request.js';

let server: TestServer;
let openai: ProviderServer;
let ollama: ProviderServer;
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
  server = await startServerWithModel({ allowed_private_hosts: allowed });
});
afterAll(async () => {
  await server.close();
  await openai.close();
  await ollama.close();
  await small.close();
  await stranger.close();
});

/** POST /jobs/{id}/embed: the answer, whatever its status. */
const embed = (jobId: string, body: Record<string, unknown>) =>
  server.call('POST', `/jobs/${jobId}/embed`, { json: body });

/**
 * A job of TOPICS_MD embedded into `collection` as `first` says, then another whose embedding there as `then` says
 * is refused (409); returns that other job and the error the refusal carries.
 */
async function refusedBeside(collection: string, first: Record<string, unknown>, then: Record<string, unknown>) {
  const embedded = await finalizedJob(server, `${collection}-a.md`, TOPICS_MD);
  await embedAndWait(server, embedded.job_id, { ...first, collection_name: collection });
  const other = await finalizedJob(server, `${collection}-b.md`, TOPICS_MD);
  const res = await embed(other.job_id, { ...then, collection_name: collection });
  expect(res.status).toBe(409);
  return { other, error: (await json(res)).error };
}

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
    const ollamaMiniLm = { provider: 'ollama', model: 'all-minilm', base_url: ollama.url };
    const { other, error } = await refusedBeside('local-only', {}, ollamaMiniLm);
    expect(error).toMatchObject({
      code: 'INDEX_MISMATCH',
      details: { collection_name: 'local-only', provider: 'local', model: TEST_MODEL, dimensions: 384 },
    });
    expect((await server.call('GET', `/jobs/${other.job_id}`)).status).toBe(200);
    expect((await json(await server.call('GET', `/jobs/${other.job_id}`))).status).toBe('finalized');

    const wrongModel = await embed(other.job_id, { provider: 'ollama', model: 'no-such', base_url: ollama.url });
    expect(wrongModel.status).toBe(502);
    expect((await json(wrongModel)).error.code).toBe('EMBEDDING_PROVIDER_FAILED');
    const unreachable = await embed(other.job_id, {
      provider: 'ollama',
      model: 'all-minilm',
      base_url: 'http://127.0.0.1:9',
    });
    expect(unreachable.status).toBe(502);
    const noModel = await embed(other.job_id, { provider: 'openai', base_url: openai.url });
    expect(noModel.status).toBe(400);
  });

  it('refuses (409) a model of the same name that answers with another dimension, before accepting the job', async () => {
    const ollamaMiniLm = { provider: 'ollama', model: 'all-minilm' };
    const { other: second, error } = await refusedBeside(
      'ollama-384',
      { ...ollamaMiniLm, base_url: ollama.url },
      { ...ollamaMiniLm, base_url: small.url },
    );
    expect(error).toMatchObject({
      code: 'INDEX_MISMATCH',
      details: { collection_name: 'ollama-384', dimensions: 384, requested: { dimensions: 3 } },
    });
    expect(error.message).toContain('384 dimensions, not 3');
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
      const res = await embed(job.job_id, {
        provider,
        model: 'all-minilm',
        base_url,
        api_key: provider === 'openai' ? 'sk-test-123' : undefined,
      });
      expect(res.status, base_url).toBe(403);
      expect((await json(res)).error.code).toBe('URL_NOT_ALLOWED');
    }
    expect(stranger.connections()).toBe(0);
    for (const base_url of ['not a url', 'file:///etc/passwd', `http://user:pw@${new URL(ollama.url).host}`]) {
      const res = await embed(job.job_id, { provider: 'ollama', model: 'all-minilm', base_url });
      expect(res.status, base_url).toBe(400);
      expect((await json(res)).error.code).toBe('URL_INVALID');
    }
    expect((await json(await server.call('GET', `/jobs/${job.job_id}`))).status).toBe('finalized');
  });
});

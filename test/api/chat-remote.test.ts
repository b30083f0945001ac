import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';
import { chat, chatStream, indexedJob } from '../helpers/chat-flow.js';
import { startChatServer } from '../helpers/chat-servers.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { listenOnLoopback, type LoopbackServer } from '../helpers/loopback-server.js';
import type { ProviderServer } from '../helpers/provider-request.js';

let server: TestServer;
let openai: ProviderServer;
let ollama: ProviderServer;
/** A loopback listener nobody allowed: a chat naming it must not reach it. */
let stranger: LoopbackServer;
let jobId: string;
beforeAll(async () => {
  openai = await startChatServer('openai', { apiKey: 'sk-test-123', model: 'gpt-local' });
  ollama = await startChatServer('ollama', { model: 'llama-local' });
  stranger = await listenOnLoopback((_req, res) => res.writeHead(200).end());
  // No local chat model is installed: remote providers need none. Outbound requests may reach the two
  // provider servers and port 9 (where nothing listens), no other loopback port.
  const allowed = [new URL(openai.url).host, new URL(ollama.url).host, '127.0.0.1:9'];
  server = await startServer({ settings: { embedding_model: TEST_MODEL, allowed_private_hosts: allowed } });
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
});
afterAll(async () => {
  await server.close();
  await openai.close();
  await ollama.close();
  await stranger.close();
});

const question = 'What does chlorophyll capture?';
/** The question on the indexed job, through the provider `via` names. */
const ask = (via: Record<string, unknown>) => chat(server, { job_id: jobId, question, ...via });
const askStreamed = (via: Record<string, unknown>) => chatStream(server, { job_id: jobId, question, ...via });
/** The OpenAI-protocol server with a key it refuses. */
const refusedKey = () => ({
  llm_provider: 'openai',
  llm_model: 'gpt-local',
  base_url: openai.url,
  api_key: 'sk-wrong',
});

describe('remote chat providers', () => {
  it('openai: streams /v1/chat/completions with the bearer key; the prompt carries the retrieved sources', async () => {
    const res = await ask({
      config: { llm_provider: 'openai', llm_model: 'gpt-local', top_k: 2, max_tokens: 20 },
      base_url: `${openai.url}/v1`,
      api_key: 'sk-test-123',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', llm_provider: 'openai', llm_model: 'gpt-local' });
    const seen = openai.requests.at(-1)!;
    expect(seen).toMatchObject({
      path: '/v1/chat/completions',
      authorization: 'Bearer sk-test-123',
      body: { model: 'gpt-local', stream: true, max_tokens: 20, temperature: 0 },
    });
    expect(seen.body.messages[0].role).toBe('system');
    expect(seen.body.messages.at(-1).content).toContain(
      '[S1] Photosynthesis: Chlorophyll in the leaves captures sunlight',
    );
    expect(seen.body.messages.at(-1).content).toContain(`Question: ${question}`);
    expect(res.body.answer).toBe(seen.generated!.trim());
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    expect(res.body.sources[0].section_path).toEqual(['Photosynthesis']);

    const { events } = await askStreamed({
      llm_provider: 'openai',
      llm_model: 'gpt-local',
      base_url: openai.url,
      api_key: 'sk-test-123',
      max_tokens: 20,
    });
    expect(events[0]!.event).toBe('sources');
    expect(events.filter((e) => e.event === 'token').length).toBeGreaterThan(1);
    expect(events.at(-1)!.event).toBe('done');
  });

  it('ollama: streams /api/chat line by line, base URL without /v1', async () => {
    const res = await ask({
      llm_provider: 'ollama',
      llm_model: 'llama-local',
      base_url: ollama.url,
      max_tokens: 20,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', llm_provider: 'ollama', llm_model: 'llama-local' });
    const seen = ollama.requests.at(-1)!;
    expect(seen).toMatchObject({
      path: '/api/chat',
      body: { model: 'llama-local', stream: true, options: { num_predict: 20, temperature: 0 } },
    });
    expect(res.body.answer).toBe(seen.generated!.trim());
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    // Remote answers never start the local llama host.
    expect((await (await server.call('GET', '/health')).json()).llm.running).toBe(false);
  });

  it('a failing provider is 502 LLM_PROVIDER_FAILED (wrong key, unknown model, unreachable); no model name is 400', async () => {
    const wrongKey = await ask(refusedKey());
    expect(wrongKey.status).toBe(502);
    expect(wrongKey.body.error.code).toBe('LLM_PROVIDER_FAILED');
    expect(wrongKey.body.error.message).toContain('401');
    const unknown = await ask({
      llm_provider: 'ollama',
      llm_model: 'nope',
      base_url: ollama.url,
    });
    expect(unknown.status).toBe(502);
    const unreachable = await ask({
      llm_provider: 'ollama',
      llm_model: 'llama-local',
      base_url: 'http://127.0.0.1:9',
    });
    expect(unreachable.status).toBe(502);
    expect((await ask({ llm_provider: 'openai', base_url: openai.url })).status).toBe(400);
    // Streamed, the same failure arrives as an error event after the sources.
    const { events } = await askStreamed(refusedKey());
    expect(events.map((e) => e.event)).toEqual(['sources', 'error']);
    expect(events[1]!.data.code).toBe('LLM_PROVIDER_FAILED');
  });

  it('a base_url on a host not allowed is 403 URL_NOT_ALLOWED and nothing reaches it; a malformed one is 400 before anything runs', async () => {
    for (const provider of ['openai', 'ollama']) {
      const refused = await ask({
        llm_provider: provider,
        llm_model: 'm',
        base_url: stranger.url,
        api_key: 'sk-test-123',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('URL_NOT_ALLOWED');
      expect(refused.body.error.message).toContain('allowed_private_hosts');
    }
    const { events } = await askStreamed({
      llm_provider: 'ollama',
      llm_model: 'm',
      base_url: `http://localhost:${new URL(stranger.url).port}`,
    });
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { code: 'URL_NOT_ALLOWED' } });
    expect(stranger.connections()).toBe(0);

    for (const base_url of ['not a url', 'ftp://127.0.0.1/', `http://user:secret@${new URL(openai.url).host}`]) {
      const bad = await ask({
        llm_provider: 'openai',
        llm_model: 'gpt-local',
        base_url,
      });
      expect(bad.status, base_url).toBe(400);
      expect(bad.body.error.code).toBe('URL_INVALID');
    }
    // Refused before retrieval: the stream never opens.
    const streamed = await server.call('POST', '/chat', {
      json: { job_id: jobId, question, llm_provider: 'ollama', llm_model: 'm', base_url: 'gopher://x', stream: true },
    });
    expect(streamed.status).toBe(400);
  });

  it('a provider error is reported by status without quoting what the provider sent', async () => {
    const wrongKey = await ask(refusedKey());
    expect(wrongKey.body.error.message).toMatch(/answered 401: the key is missing or refused$/);
    expect(wrongKey.body.error.message).not.toContain('Incorrect API key');
  });
});

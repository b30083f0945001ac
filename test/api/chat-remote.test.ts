import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';
import { chat, chatStream, indexedJob } from '../helpers/chat-flow.js';
import { startChatServer, type ChatProtocolServer } from '../helpers/chat-servers.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';

let server: TestServer;
let openai: ChatProtocolServer;
let ollama: ChatProtocolServer;
let jobId: string;
beforeAll(async () => {
  // No local chat model is installed: remote providers need none.
  server = await startServer({ settings: { embedding_model: TEST_MODEL } });
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
  openai = await startChatServer('openai', { apiKey: 'sk-test-123', model: 'gpt-local' });
  ollama = await startChatServer('ollama', { model: 'llama-local' });
});
afterAll(async () => {
  await server.close();
  await openai.close();
  await ollama.close();
});

const question = 'What does chlorophyll capture?';

describe('remote chat providers', () => {
  it('openai: streams /v1/chat/completions with the bearer key; the prompt carries the retrieved sources', async () => {
    const res = await chat(server, { job_id: jobId, question, config: { llm_provider: 'openai', llm_model: 'gpt-local', top_k: 2, max_tokens: 20 }, base_url: `${openai.url}/v1`, api_key: 'sk-test-123' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', llm_provider: 'openai', llm_model: 'gpt-local' });
    const seen = openai.requests.at(-1)!;
    expect(seen).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer sk-test-123', body: { model: 'gpt-local', stream: true, max_tokens: 20, temperature: 0 } });
    expect(seen.body.messages[0].role).toBe('system');
    expect(seen.body.messages.at(-1).content).toContain('[S1] Photosynthesis: Chlorophyll in the leaves captures sunlight');
    expect(seen.body.messages.at(-1).content).toContain(`Question: ${question}`);
    expect(res.body.answer).toBe(seen.generated!.trim());
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    expect(res.body.sources[0].section_path).toEqual(['Photosynthesis']);

    const { events } = await chatStream(server, { job_id: jobId, question, llm_provider: 'openai', llm_model: 'gpt-local', base_url: openai.url, api_key: 'sk-test-123', max_tokens: 20 });
    expect(events[0]!.event).toBe('sources');
    expect(events.filter((e) => e.event === 'token').length).toBeGreaterThan(1);
    expect(events.at(-1)!.event).toBe('done');
  });

  it('ollama: streams /api/chat line by line, base URL without /v1', async () => {
    const res = await chat(server, { job_id: jobId, question, llm_provider: 'ollama', llm_model: 'llama-local', base_url: ollama.url, max_tokens: 20 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', llm_provider: 'ollama', llm_model: 'llama-local' });
    const seen = ollama.requests.at(-1)!;
    expect(seen).toMatchObject({ path: '/api/chat', body: { model: 'llama-local', stream: true, options: { num_predict: 20, temperature: 0 } } });
    expect(res.body.answer).toBe(seen.generated!.trim());
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    // Remote answers never start the local llama host.
    expect((await (await server.call('GET', '/health')).json()).llm.running).toBe(false);
  });

  it('a failing provider is 502 LLM_PROVIDER_FAILED (wrong key, unknown model, unreachable); no model name is 400', async () => {
    const wrongKey = await chat(server, { job_id: jobId, question, llm_provider: 'openai', llm_model: 'gpt-local', base_url: openai.url, api_key: 'sk-wrong' });
    expect(wrongKey.status).toBe(502);
    expect(wrongKey.body.error.code).toBe('LLM_PROVIDER_FAILED');
    expect(wrongKey.body.error.message).toContain('401');
    const unknown = await chat(server, { job_id: jobId, question, llm_provider: 'ollama', llm_model: 'nope', base_url: ollama.url });
    expect(unknown.status).toBe(502);
    const unreachable = await chat(server, { job_id: jobId, question, llm_provider: 'ollama', llm_model: 'llama-local', base_url: 'http://127.0.0.1:9' });
    expect(unreachable.status).toBe(502);
    expect((await chat(server, { job_id: jobId, question, llm_provider: 'openai', base_url: openai.url })).status).toBe(400);
    // Streamed, the same failure arrives as an error event after the sources.
    const { events } = await chatStream(server, { job_id: jobId, question, llm_provider: 'openai', llm_model: 'gpt-local', base_url: openai.url, api_key: 'sk-wrong' });
    expect(events.map((e) => e.event)).toEqual(['sources', 'error']);
    expect(events[1]!.data.code).toBe('LLM_PROVIDER_FAILED');
  });
});

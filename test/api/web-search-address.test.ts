import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestServer } from '../helpers/app.js';
import { startServerWithModel } from '../helpers/embed-flow.js';
import { startSearxServer, type SearxServer } from '../helpers/searx-server.js';

// `web_search_url` written as the instance's search endpoint, as many guides and other tools' settings
// write it, answers chats as the instance's root does.

let searx: SearxServer;
let server: TestServer;

beforeAll(async () => {
  searx = await startSearxServer();
  server = await startServerWithModel({
    allowed_private_hosts: [new URL(searx.url).host],
    web_search_url: `${searx.url}/search`,
  });
});
afterAll(async () => {
  await server?.close();
  await searx?.close();
});

describe('web search address', () => {
  it('a chat with web_search asks the endpoint the setting names', async () => {
    const { bot_id } = await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } }));
    const { chat_id } = await json(await server.call('POST', `/bots/${bot_id}/chats`));
    const res = await server.call('POST', `/bots/${bot_id}/chats/${chat_id}`, {
      json: { query: 'How much heat does baking bread need?', web_search: true },
    });
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer.web_sources.map((s: { url: string }) => s.url)).toContain('https://example.org/heat');
    expect(searx.requests.map((q) => q.get('q'))).toEqual(['How much heat does baking bread need?']);
  });
});

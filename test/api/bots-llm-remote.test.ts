import { join } from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestServer } from '../helpers/app.js';
import { addBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { startChatServer } from '../helpers/chat-servers.js';
import { startServerWithModel } from '../helpers/embed-flow.js';
import { listenOnLoopback, readJson, type LoopbackServer } from '../helpers/loopback-server.js';
import type { ProviderServer } from '../helpers/provider-request.js';
import { sseRequest } from '../helpers/sse.js';

// Bots answering through a remote provider of the OpenAI protocol, over HTTP: a real chat server on
// loopback (stories260K under llama.cpp, honouring the JSON-schema response format by its grammar), its
// key taken from OPENAI_API_KEY as for the jobs chat; and a provider that breaks off in the middle of its
// answer. Also the OpenAI-compatible route's model list and the history it takes from `messages`.

const KEY = 'sk-bots-remote';
let server: TestServer;
let openai: ProviderServer;
/** Streams one piece of an answer, then drops the connection: a provider failing mid-stream. */
let breaking: LoopbackServer & { requests: number };
let botId = '';
let breakingBotId = '';

async function newBot(body: Record<string, unknown>): Promise<string> {
  const res = await server.call('POST', '/bots', { json: body });
  expect(res.status).toBe(200);
  return (await json(res)).bot_id as string;
}

const newChat = async (id: string) => (await json(await server.call('POST', `/bots/${id}/chats`))).chat_id as string;
const newest = async (chatId: string) =>
  (await json(await server.call('GET', `/chats/${chatId}?order=newest`))).messages[0];

beforeAll(async () => {
  openai = await startChatServer('openai', { apiKey: KEY, model: 'gpt-local' });
  const b = await listenOnLoopback((req, res) => {
    void readJson(req).then(() => {
      breaking.requests++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Chlorophyll captures' }, finish_reason: null }] })}\n\n`;
      // Once the piece is on its way, the connection goes: no [DONE], no end of the chunked body.
      res.write(piece, () => res.socket?.destroy());
    });
  });
  breaking = Object.assign(b, { requests: 0 });
  // A bot stores no provider key: it comes from the environment, read when the server starts.
  process.env.OPENAI_API_KEY = KEY;
  const root = topicsRoot('lectern-bot-remote-');
  server = await startServerWithModel({
    document_roots: [root],
    allowed_private_hosts: [new URL(openai.url).host, new URL(breaking.url).host],
  });
  botId = await newBot({
    name: 'Remote tutor',
    prompt_template: 'You are a science tutor.',
    llm: { provider: 'openai', model: 'gpt-local', base_url: openai.url },
  });
  await addBotDocument(server, botId, join(root, 'topics.md'));
  const brokenBot = await newBot({
    name: 'Broken line',
    llm: { provider: 'openai', model: 'gpt-local', base_url: breaking.url },
  });
  await addBotDocument(server, brokenBot, join(root, 'topics.md'));
  breakingBotId = brokenBot;
});
afterAll(async () => {
  delete process.env.OPENAI_API_KEY;
  await server?.close();
  await openai?.close();
  await breaking?.close();
});

describe('a bot on a remote OpenAI-protocol provider', () => {
  it("answers with the caller's schema: response_format json_schema carries it whole, and the answer validates", async () => {
    const chatId = await newChat(botId);
    const schema = {
      type: 'object',
      properties: { answer: { type: 'string', maxLength: 40 } },
      required: ['answer'],
      additionalProperties: false,
    };
    const before = openai.requests.length;
    const res = await server.call('POST', `/bots/${botId}/chats/${chatId}`, {
      json: { query: 'What does chlorophyll capture?', schema },
    });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(openai.requests.length).toBe(before + 1);
    const seen = openai.requests.at(-1)!;
    expect(seen).toMatchObject({ path: '/v1/chat/completions', authorization: `Bearer ${KEY}` });
    expect(seen.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: false },
    });
    // The model is told the schema too, and gets the bot's sources.
    expect(seen.body.messages[0].content).toContain(JSON.stringify(schema));
    expect(seen.body.messages.at(-1).content).toContain('Chlorophyll in the leaves captures sunlight');
    expect(m.answer).toEqual(JSON.parse(seen.generated!));
    const validate = new Ajv.default({ strict: false }).compile(schema);
    expect(validate(m.answer), JSON.stringify(validate.errors)).toBe(true);
    expect(m).toMatchObject({ status: 'complete', not_found: false, usage: { attempts: 1 } });
    expect((await newest(chatId)).answer).toEqual(m.answer);
  });

  it("a constraint the provider's grammar cannot enforce: one retry showing the errors, then 422 SCHEMA_UNSATISFIED with both attempts, stored as failed", async () => {
    const chatId = await newChat(botId);
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', maxLength: 24, pattern: '^ZQX-[0-9]{6}-QXZ$' } },
      required: ['code'],
    };
    const before = openai.requests.length;
    const res = await server.call('POST', `/bots/${botId}/chats/${chatId}`, {
      json: { query: 'What does chlorophyll capture?', schema },
    });
    expect(res.status).toBe(422);
    const { error } = await json(res);
    // Exactly two requests reached the provider: the answer and one retry.
    const [first, retry] = openai.requests.slice(before);
    expect(openai.requests.length).toBe(before + 2);
    expect(error).toMatchObject({ code: 'SCHEMA_UNSATISFIED', details: { attempts: 2, raw: retry!.generated } });
    expect(error.details.errors).toEqual([expect.objectContaining({ path: '/code', keyword: 'pattern' })]);
    expect(error.details.previous).toEqual({
      raw: first!.generated,
      errors: [expect.objectContaining({ path: '/code', keyword: 'pattern' })],
    });
    // The retry showed the model its first answer and what was wrong with it.
    expect(retry!.body.messages.at(-2)).toEqual({ role: 'assistant', content: first!.generated });
    expect(retry!.body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('/code: must match pattern "^ZQX-[0-9]{6}-QXZ$"'),
    });
    expect(await newest(chatId)).toMatchObject({
      question: 'What does chlorophyll capture?',
      status: 'failed',
      error: { code: 'SCHEMA_UNSATISFIED' },
    });
  });

  it('streams an error event when the provider breaks off mid-answer, after the piece it sent; the message is stored as failed', async () => {
    const chatId = await newChat(breakingBotId);
    const before = breaking.requests;
    const { res, events } = await sseRequest(`${server.url}/bots/${breakingBotId}/chats/${chatId}`, {
      method: 'POST',
      headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'What does chlorophyll capture?', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(breaking.requests).toBe(before + 1);
    expect(events.map((e) => e.event)).toEqual(['sources', 'token', 'error']);
    expect(events[1]!.data).toEqual({ text: 'Chlorophyll captures' });
    expect(events[2]!.data).toMatchObject({
      code: 'LLM_PROVIDER_FAILED',
      message: expect.stringContaining('broke off'),
    });
    expect(await newest(chatId)).toMatchObject({ status: 'failed', error: { code: 'LLM_PROVIDER_FAILED' } });
  });
});

describe('follow-ups in a bot chat', () => {
  it("asks a follow-up with the chat's earlier turn: given to the model and searched with; a new chat finds nothing for it", async () => {
    const chatId = await newChat(botId);
    const first = await json(
      await server.call('POST', `/bots/${botId}/chats/${chatId}`, {
        json: { query: 'What does chlorophyll capture?' },
      }),
    );
    expect(first).toMatchObject({ status: 'complete', not_found: false });
    const res = await server.call('POST', `/bots/${botId}/chats/${chatId}`, {
      json: { query: 'Where does it happen?' },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: 'complete', not_found: false });
    const sent = openai.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(sent.slice(1, 3)).toEqual([
      { role: 'user', content: 'What does chlorophyll capture?' },
      { role: 'assistant', content: first.answer.replace(/\s*\[[^\]\n]*\]/g, '') },
    ]);
    expect(sent.at(-1)!.content).toContain('Chlorophyll in the leaves captures sunlight');
    expect(sent.at(-1)!.content).toContain('Question: Where does it happen?');

    const before = openai.requests.length;
    const fresh = await newChat(botId);
    const alone = await json(
      await server.call('POST', `/bots/${botId}/chats/${fresh}`, { json: { query: 'Where does it happen?' } }),
    );
    expect(alone).toMatchObject({ not_found: true, citations: [] });
    expect(openai.requests.length).toBe(before);
  });
});

describe('the OpenAI-compatible route on a remote-provider bot', () => {
  const completion = (messages: { role: string; content: string }[]) =>
    server.call('POST', '/v1/chat/completions', { json: { model: `bot:${botId}`, messages } });

  it('lists the bots by id and name', async () => {
    const res = await server.call('GET', '/v1/models');
    expect(res.status).toBe(200);
    const { data } = await json(res);
    expect(data).toContainEqual(expect.objectContaining({ id: `bot:${botId}`, object: 'model', name: 'Remote tutor' }));
    expect(data).toContainEqual(expect.objectContaining({ id: `bot:${breakingBotId}`, name: 'Broken line' }));
  });

  it('asks the last user message with the earlier turns as history: a follow-up found only through the earlier question', async () => {
    const followUp = 'Where does it happen?';
    const withHistory = await completion([
      { role: 'system', content: 'Ignored.' },
      { role: 'user', content: 'What does chlorophyll capture?' },
      { role: 'assistant', content: 'Sunlight [S1].' },
      { role: 'user', content: followUp },
    ]);
    expect(withHistory.status).toBe(200);
    const sent = openai.requests.at(-1)!.body.messages as { role: string; content: string }[];
    // The earlier turn reaches the model as a turn (its old source tag dropped), before this question.
    expect(sent.slice(1, 3)).toEqual([
      { role: 'user', content: 'What does chlorophyll capture?' },
      { role: 'assistant', content: 'Sunlight.' },
    ]);
    expect(sent.at(-1)!.content).toContain(`Question: ${followUp}`);
    // And retrieval searched the follow-up together with it: the photosynthesis passage is a source.
    expect(sent.at(-1)!.content).toContain('Chlorophyll in the leaves captures sunlight');
    expect(sent.map((m) => m.content).join('\n')).not.toContain('Ignored.');

    expect((await json(withHistory)).choices[0].message.content).toBe(openai.requests.at(-1)!.generated!.trim());

    // Without the earlier turn the same question finds nothing relevant: answered so, and no model is asked.
    const before = openai.requests.length;
    const alone = await completion([{ role: 'user', content: followUp }]);
    expect(alone.status).toBe(200);
    expect((await json(alone)).choices[0].message).toMatchObject({
      content: "I could not find the answer to this question in this bot's documents.",
      citations: [],
    });
    expect(openai.requests.length).toBe(before);
  });
});

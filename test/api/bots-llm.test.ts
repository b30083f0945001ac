import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { addBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { installChatModel, SMOLLM2, streamedAnswer } from '../helpers/chat-flow.js';
import { installTestModel, TEST_MODEL } from '../helpers/embed-flow.js';
import { sseRequest } from '../helpers/sse.js';

// A bot answering with the real local model (SmolLM2-135M under llama.cpp): plain, under a JSON schema
// (grammar-constrained, then validated), and streamed with a hang-up that stops generation.

let server: TestServer;
let botId = '';
let chatId = '';

beforeAll(async () => {
  const root = topicsRoot('lectern-bot-llm-');
  const dataDir = tempDir();
  await Promise.all([installTestModel(dataDir), installChatModel(dataDir, SMOLLM2)]);
  server = await startServer({
    dataDir,
    settings: { embedding_model: TEST_MODEL, chat_model: SMOLLM2, document_roots: [root] },
  });
  botId = (
    await json(
      await server.call('POST', '/bots', {
        json: { name: 'Science tutor', prompt_template: 'You are a science tutor.' },
      }),
    )
  ).bot_id;
  await addBotDocument(server, botId, join(root, 'topics.md'));
  chatId = (await json(await server.call('POST', `/bots/${botId}/chats`))).chat_id;
});
afterAll(async () => server?.close());

const ask = (body: Record<string, unknown>) => server.call('POST', `/bots/${botId}/chats/${chatId}`, { json: body });

describe('a bot with the local model', () => {
  it('answers from its document with a citation', async () => {
    const res = await ask({ query: 'What does chlorophyll capture?' });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.not_found).toBe(false);
    expect(typeof m.answer).toBe('string');
    expect(m.answer.length).toBeGreaterThan(0);
    expect(m.citations[0]).toMatchObject({ source: 'topics.md' });
  });

  it("answers as JSON valid against the caller's schema, stored as JSON in the chat", async () => {
    const schema = {
      type: 'object',
      properties: {
        answer: { type: 'string', minLength: 1, maxLength: 200 },
        topic: { type: 'string', enum: ['photosynthesis', 'volcanoes', 'bread', 'chess', 'taxes'] },
      },
      required: ['answer', 'topic'],
      additionalProperties: false,
    };
    const res = await ask({ query: 'What does chlorophyll capture?', schema });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.answer).toEqual({
      answer: expect.any(String),
      topic: expect.stringMatching(/^(photosynthesis|volcanoes|bread|chess|taxes)$/),
    });
    // Not streamed, yet timed token by token: what bench:bots reports as its time to first token and tokens/s.
    expect(m.usage.first_token_ms).toBeGreaterThan(0);
    expect(m.usage.first_token_ms).toBeLessThan(m.usage.generation_ms);
    expect(m.usage.decode_ms).toBeGreaterThan(0);
    expect(m.usage.first_token_ms + m.usage.decode_ms).toBeLessThanOrEqual(m.usage.generation_ms);
    const history = await json(await server.call('GET', `/chats/${chatId}?order=newest`));
    expect(history.messages[0].answer).toEqual(m.answer);
    const bad = await ask({ query: 'x', schema: { type: 'object', properties: { a: { type: 'no-such-type' } } } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('SCHEMA_INVALID');
  });

  it("a constraint the grammar cannot enforce: 422 SCHEMA_UNSATISFIED after one retry, with both attempts' output and errors; stored as failed", async () => {
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', maxLength: 24, pattern: '^ZQX-[0-9]{6}-QXZ$' } },
      required: ['code'],
    };
    const res = await ask({ query: 'What is the shipment code of the chlorophyll order?', schema });
    expect(res.status).toBe(422);
    const { error } = await json(res);
    expect(error).toMatchObject({ code: 'SCHEMA_UNSATISFIED', details: { attempts: 2 } });
    const pattern = [expect.objectContaining({ path: '/code', keyword: 'pattern' })];
    // The grammar held the shape of both answers (JSON with a string code); only the pattern failed, twice.
    expect(error.details.errors).toEqual(pattern);
    expect(JSON.parse(error.details.raw)).toEqual({ code: expect.any(String) });
    expect(error.details.previous).toEqual({ raw: expect.any(String), errors: pattern });
    expect(JSON.parse(error.details.previous.raw)).toEqual({ code: expect.any(String) });
    const stored = (await json(await server.call('GET', `/chats/${chatId}?order=newest`))).messages[0];
    expect(stored).toMatchObject({
      question: 'What is the shipment code of the chlorophyll order?',
      status: 'failed',
      error: { code: 'SCHEMA_UNSATISFIED' },
    });
  });

  it('streams tokens, and stops generating when the client hangs up', async () => {
    const init = { method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' } };
    const whole = await sseRequest(`${server.url}/bots/${botId}/chats/${chatId}`, {
      ...init,
      body: JSON.stringify({ query: 'What does chlorophyll capture?', stream: true }),
    });
    const names = whole.events.map((e) => e.event);
    expect(names[0]).toBe('sources');
    expect(names.at(-1)).toBe('done');
    expect(names.filter((n) => n === 'token').length).toBeGreaterThan(1);
    expect(streamedAnswer(whole.events)).toBe(whole.events.at(-1)!.data.answer);
    const cut = await sseRequest(
      `${server.url}/bots/${botId}/chats/${chatId}`,
      {
        ...init,
        body: JSON.stringify({ query: 'Describe in detail how volcanoes erupt, step by step.', stream: true }),
      },
      (e) => e.event === 'token',
    );
    expect(cut.events.map((e) => e.event)).toEqual(['sources', 'token']);
    const end = Date.now() + 30_000;
    let last: { question: string; status: string } | undefined;
    while (Date.now() < end) {
      last = (await json(await server.call('GET', `/chats/${chatId}?order=newest`))).messages[0];
      if (last?.question.startsWith('Describe in detail')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last).toMatchObject({ status: 'cancelled' });
  });
});

describe('a bot as an OpenAI model, called by the official openai client', () => {
  const client = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.key, maxRetries: 0 });

  it('lists bots as models and answers a completion with citations, history taken from the messages', async () => {
    const models = await client().models.list();
    expect(models.data).toContainEqual(
      expect.objectContaining({ id: `bot:${botId}`, object: 'model', name: 'Science tutor' }),
    );
    const done = await client().chat.completions.create({
      model: `bot:${botId}`,
      messages: [
        { role: 'system', content: 'Ignored: the bot keeps its own instructions.' },
        { role: 'user', content: 'Tell me about leaves.' },
        { role: 'assistant', content: 'Leaves hold chlorophyll.' },
        { role: 'user', content: 'What does chlorophyll capture?' },
      ],
    });
    expect(done.object).toBe('chat.completion');
    expect(done.choices[0]!.message.content?.length).toBeGreaterThan(0);
    expect((done.choices[0]!.message as unknown as { citations: { source: string }[] }).citations[0]).toMatchObject({
      source: 'topics.md',
    });
    expect(done.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('streams OpenAI chunks token by token, ending with the citations', async () => {
    const stream = await client().chat.completions.create({
      model: `bot:${botId}`,
      stream: true,
      messages: [{ role: 'user', content: 'What does chlorophyll capture?' }],
    });
    const parts: string[] = [];
    let finish: string | null = null;
    let citations: unknown[] = [];
    for await (const c of stream) {
      if (c.choices[0]?.delta.content) parts.push(c.choices[0].delta.content);
      if (c.choices[0]?.finish_reason) {
        finish = c.choices[0].finish_reason;
        citations = (c as unknown as { citations: unknown[] }).citations;
      }
    }
    expect(parts.length).toBeGreaterThan(1);
    expect(finish).toBe('stop');
    expect(citations.length).toBeGreaterThan(0);
  });

  it('takes a json_schema response format down the schema path', async () => {
    const done = await client().chat.completions.create({
      model: `bot:${botId}`,
      messages: [{ role: 'user', content: 'What does chlorophyll capture?' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'a',
          schema: { type: 'object', properties: { answer: { type: 'string', maxLength: 200 } }, required: ['answer'] },
        },
      },
    });
    expect(JSON.parse(done.choices[0]!.message.content ?? '')).toEqual({ answer: expect.any(String) });
    await expect(
      client().chat.completions.create({ model: 'bot:nobody', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

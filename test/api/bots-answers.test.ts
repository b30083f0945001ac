import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_NOT_FOUND_ANSWER } from '../../server/core/bots/bot-chat.js';
import { json, type TestServer } from '../helpers/app.js';
import { addBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { startServerWithModel } from '../helpers/embed-flow.js';
import { listenOnLoopback, readJson, type LoopbackServer } from '../helpers/loopback-server.js';
import { sseRequest } from '../helpers/sse.js';

// A bot's answers through HTTP against the real server and MiniLM, with no web search configured: what a
// chat answers and keeps (citations, history, follow-ups), what it refuses, and the vectorstore's search.

let server: TestServer;
let ollama: LoopbackServer;
/** What the Ollama-protocol server was asked: each request's body. */
const asked: any[] = [];
let root = '';
let botId = '';
let jobId = '';

beforeAll(async () => {
  // An Ollama /api/chat on loopback answering one fixed sentence: a bot's remote provider that counts its calls.
  ollama = await listenOnLoopback((req, res) => {
    void (async () => {
      const body = await readJson(req);
      asked.push(body);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(
        `${JSON.stringify({ model: body.model, message: { role: 'assistant', content: 'Chlorophyll captures sunlight [S1].' }, done: false })}\n`,
      );
      res.end(
        `${JSON.stringify({ model: body.model, message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 40, eval_count: 6 })}\n`,
      );
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  root = topicsRoot('lectern-bot-answers-');
  server = await startServerWithModel({
    document_roots: [root],
    allowed_private_hosts: [new URL(ollama.url).host],
    web_search_url: '',
  });
  botId = await newBot();
  jobId = await addTopics(botId);
});
afterAll(async () => {
  await server?.close();
  await ollama?.close();
});

async function newBot(body: Record<string, unknown> = {}): Promise<string> {
  return (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' }, ...body } })))
    .bot_id;
}
const addTopics = (bot: string) => addBotDocument(server, bot, join(root, 'topics.md'));
const newChat = async (bot = botId): Promise<string> =>
  (await json(await server.call('POST', `/bots/${bot}/chats`))).chat_id;
const ask = (chat: string, body: Record<string, unknown>, bot = botId) =>
  server.call('POST', `/bots/${bot}/chats/${chat}`, { json: body });
const vectorstore = async (body: Record<string, unknown>, bot = botId) =>
  json(await server.call('POST', `/bots/${bot}/vectorstore`, { json: body }));
/** The chunk of TOPICS_MD a question is about, as the vectorstore names it. */
const chunkAbout = async (query: string) =>
  (await vectorstore({ query, top_k: 1 })).documents[0].metadata.chunk_id as string;
const streamed = (chat: string, body: Record<string, unknown>, bot = botId) =>
  sseRequest(`${server.url}/bots/${bot}/chats/${chat}`, {
    method: 'POST',
    headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });

describe('bot answers', () => {
  it('answers 409 WEB_SEARCH_UNAVAILABLE, saying how to configure one, when web search is asked and none is configured', async () => {
    const chat = await newChat();
    for (const body of [
      { query: 'What does chlorophyll capture?', web_search: true },
      { query: 'What does chlorophyll capture?', web_search: true, stream: true },
    ]) {
      const res = await ask(chat, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.headers.get('content-type')).toContain('application/json');
      const { error } = await json(res);
      expect(error.code).toBe('WEB_SEARCH_UNAVAILABLE');
      expect(error.message).toContain('web_search_url');
    }
    // Nothing was kept of the refused questions; without web search the same chat answers.
    expect((await json(await server.call('GET', `/chats/${chat}`))).messages).toEqual([]);
    const ok = await ask(chat, { query: 'What does chlorophyll capture?', web_search: false });
    expect(ok.status).toBe(200);
    expect((await json(ok)).web_sources).toEqual([]);
  });

  it("cites the chunk and job it answered from, and answers a follow-up from the earlier turn's subject", async () => {
    const photosynthesis = await chunkAbout('Chlorophyll captures sunlight, releasing oxygen');
    const chat = await newChat();
    const first = await json(await ask(chat, { query: 'What does chlorophyll capture?' }));
    expect(first.citations[0]).toEqual({
      chunk_id: photosynthesis,
      job_id: jobId,
      source: 'topics.md',
      page_numbers: [1],
      quote: expect.stringContaining('Chlorophyll'),
    });
    // Nothing in these words names a subject: only the earlier question gives them one.
    const followUp = 'Tell me more about that.';
    const second = await json(await ask(chat, { query: followUp }));
    expect(second.not_found, `the follow-up after ${JSON.stringify(first)}: ${JSON.stringify(second)}`).toBe(false);
    expect(second.answer).toContain('oxygen');
    expect(second.citations.map((c: { chunk_id: string }) => c.chunk_id)).toContain(photosynthesis);
    expect(second.citations.every((c: { job_id: string }) => c.job_id === jobId)).toBe(true);
    // Asked on its own, the same words find nothing to answer from.
    const alone = await json(await ask(await newChat(), { query: followUp }));
    expect(alone).toMatchObject({ not_found: true, citations: [] });
  });

  it("keeps the history in either order with each message's citations, web sources and time", async () => {
    const chat = await newChat();
    const started = Date.now();
    const a = await json(await ask(chat, { query: 'How is bread dough prepared?' }));
    const b = await json(await ask(chat, { query: 'Who won the 1974 football world cup?' }));
    const c = await json(await ask(chat, { query: 'Which chess opening answers the king pawn with the c-pawn?' }));
    const oldest = await json(await server.call('GET', `/chats/${chat}?order=oldest`));
    expect(oldest).toMatchObject({ chat_id: chat, bot_id: botId });
    expect(oldest.messages.map((m: { message_id: string }) => m.message_id)).toEqual([
      a.message_id,
      b.message_id,
      c.message_id,
    ]);
    for (const [i, sent] of [a, b, c].entries()) {
      const kept = oldest.messages[i];
      expect(kept).toMatchObject({
        question: sent.question,
        answer: sent.answer,
        citations: sent.citations,
        web_sources: [],
        not_found: sent.not_found,
        status: 'complete',
      });
      expect(kept.created_at).toBe(sent.created_at);
      expect(Date.parse(kept.created_at)).toBeGreaterThanOrEqual(started - 1000);
    }
    expect(oldest.messages[0].citations[0]).toMatchObject({ job_id: jobId, source: 'topics.md' });
    expect(oldest.messages[1]).toMatchObject({ not_found: true, citations: [] });
    const times = oldest.messages.map((m: { created_at: string }) => Date.parse(m.created_at));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    const newest = await json(await server.call('GET', `/chats/${chat}?order=newest`));
    expect(newest.messages).toEqual([...oldest.messages].reverse());
    expect(await json(await server.call('GET', `/chats/${chat}`))).toEqual(oldest);
    const sideways = await server.call('GET', `/chats/${chat}?order=sideways`);
    expect(sideways.status).toBe(400);
    expect((await json(sideways)).error.code).toBe('VALIDATION_FAILED');
  });

  it('says "not found" without asking the model when nothing relevant is retrieved', async () => {
    const remote = await newBot({ llm: { provider: 'ollama', model: 'counting-model', base_url: ollama.url } });
    await addTopics(remote);
    const chat = await newChat(remote);
    const before = asked.length;
    const none = await json(await ask(chat, { query: 'Who won the 1974 football world cup?' }, remote));
    expect(none).toMatchObject({ not_found: true, citations: [], answer: BOT_NOT_FOUND_ANSWER, status: 'complete' });
    const { events } = await streamed(chat, { query: 'Which river is the longest in South America?' }, remote);
    expect(events.map((e) => e.event)).toEqual(['sources', 'token', 'done']);
    expect(events[0]!.data.sources).toEqual([]);
    expect(events[2]!.data).toMatchObject({ not_found: true, citations: [] });
    expect(asked.length).toBe(before);
    // The same bot asks its model when something relevant is found: the count above could have moved.
    const found = await json(await ask(chat, { query: 'What does chlorophyll capture?' }, remote));
    expect(asked.length).toBe(before + 1);
    expect(asked.at(-1)).toMatchObject({ model: 'counting-model' });
    expect(found).toMatchObject({ not_found: false, answer: expect.stringContaining('Chlorophyll captures sunlight') });
    expect(found.citations[0]).toMatchObject({
      job_id: expect.any(String),
      source: 'topics.md',
      chunk_id: expect.any(String),
    });
  });
});

describe('retrieval settings and the vectorstore', () => {
  it('gives each hit its chunk id, job, source, pages and score, as many as top_k asks', async () => {
    const hits = (await vectorstore({ query: 'How does bread dough rise?', top_k: 3 })).documents;
    expect(hits).toHaveLength(3);
    expect(hits[0].content).toContain('Knead the dough');
    for (const h of hits) {
      expect(h.metadata).toMatchObject({
        chunk_id: expect.any(String),
        job_id: jobId,
        source: 'topics.md',
        page_numbers: [1],
      });
      expect(h.metadata.score).toBeGreaterThan(0);
      expect(h.metadata.score).toBeLessThanOrEqual(1);
    }
    expect(new Set(hits.map((h: { metadata: { chunk_id: string } }) => h.metadata.chunk_id)).size).toBe(3);
    expect(hits[0].metadata.score).toBeGreaterThan(hits[2].metadata.score);
    expect((await vectorstore({ query: 'How does bread dough rise?', top_k: 1 })).documents).toHaveLength(1);
    expect((await vectorstore({ query: 'How does bread dough rise?' })).documents).toHaveLength(5);
  });

  it('searches by the mode asked: keyword finds words, vector finds meaning', async () => {
    // No word of this query is in the notes; its meaning is the photosynthesis section's.
    const query = 'botanical greenery makes sugar from light';
    const vector = (await vectorstore({ query, top_k: 2, mode: 'vector' })).documents;
    expect(vector[0].content).toContain('Chlorophyll');
    expect((await vectorstore({ query, top_k: 2, mode: 'keyword' })).documents).toEqual([]);
    const keyword = (await vectorstore({ query: 'Sicilian', top_k: 5, mode: 'keyword' })).documents;
    expect(keyword).toHaveLength(1);
    expect(keyword[0].content).toContain('Sicilian Defence');
    expect((await vectorstore({ query, top_k: 2, mode: 'hybrid' })).documents[0].content).toContain('Chlorophyll');
  });

  it("retrieves at most the bot's top_k sources for an answer", async () => {
    const narrow = await newBot({ top_k: 1, min_similarity: 0 });
    const wide = await newBot({ min_similarity: 0 });
    await Promise.all([addTopics(narrow), addTopics(wide)]);
    expect(await json(await server.call('GET', `/bots/${narrow}`))).toMatchObject({ top_k: 1 });
    const question = 'How do volcanoes erupt, and how does bread dough rise?';
    const sourcesOf = async (bot: string) =>
      (await streamed(await newChat(bot), { query: question }, bot)).events.find((e) => e.event === 'sources')!.data
        .sources;
    expect(await sourcesOf(narrow)).toHaveLength(1);
    expect(await sourcesOf(wide)).toHaveLength(5);
  });
});

describe("bodies that break the chat routes' schemas", () => {
  it('answers 400 VALIDATION_FAILED and keeps no message', async () => {
    const chat = await newChat();
    const cases: [string, Record<string, unknown>][] = [
      [`/bots/${botId}/chats/${chat}`, { query: '' }],
      [`/bots/${botId}/chats/${chat}`, { query: 42 }],
      [`/bots/${botId}/chats/${chat}`, { query: 'hi', stream: 'yes' }],
      [`/bots/${botId}/chats/${chat}`, { query: 'hi', web_search: 1 }],
      [`/bots/${botId}/chats/${chat}`, { query: 'hi', schema: 'an object please' }],
      [`/bots/${botId}/chats/${chat}`, { query: 'hi', temperature: 2 }],
      [`/bots/${botId}/chats/${chat}`, {}],
      [`/bots/${botId}/vectorstore`, { query: '' }],
      [`/bots/${botId}/vectorstore`, { query: 'bread', top_k: 0 }],
      [`/bots/${botId}/vectorstore`, { query: 'bread', top_k: 101 }],
      [`/bots/${botId}/vectorstore`, { query: 'bread', mode: 'fuzzy' }],
    ];
    for (const [path, body] of cases) {
      const res = await server.call('POST', path, { json: body });
      const label = `${path} ${JSON.stringify(body)}`;
      expect(res.status, label).toBe(400);
      expect((await json(res)).error.code, label).toBe('VALIDATION_FAILED');
    }
    expect((await json(await server.call('GET', `/chats/${chat}`))).messages).toEqual([]);
  });
});

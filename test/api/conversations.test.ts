import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, type TestServer } from '../helpers/app.js';
import { addBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { chat, indexedJob } from '../helpers/chat-flow.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';

// Past conversations of a job and of a bot through one route family over the one conversation model:
// listed with titles and sizes, renamed, deleted; a scoped key sees only its own.

let server: TestServer;
let jobId = '';
let botId = '';

beforeAll(async () => {
  const root = topicsRoot('lectern-conversations-');
  server = await startServer({ settings: { embedding_model: TEST_MODEL, document_roots: [root] } });
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
  botId = (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } }))).bot_id;
  await addBotDocument(server, botId, join(root, 'topics.md'));
});
afterAll(async () => {
  await server?.close();
});

const list = async (owner: string) => json(await server.call('GET', `/${owner}/conversations`));

describe('conversations', () => {
  it("lists a job's sessions and a bot's chats with their sizes, renames them and deletes them with their messages", async () => {
    const first = (
      await chat(server, { job_id: jobId, question: 'What does chlorophyll capture?', llm_provider: 'extractive' })
    ).body;
    await chat(server, {
      session_id: first.session_id,
      question: 'Which gas do plants release?',
      llm_provider: 'extractive',
    });
    const titled = await json(
      await server.call('POST', '/chat/sessions', { json: { job_id: jobId, title: 'Empty one' } }),
    );
    const jobs = (await list(`jobs/${jobId}`)).conversations;
    expect(
      jobs.map((c: Record<string, unknown>) => [c.conversation_id, c.scope, c.job_id, c.title, c.message_count]),
    ).toEqual([
      [first.session_id, 'job', jobId, null, 2],
      [titled.session_id, 'job', jobId, 'Empty one', 0],
    ]);

    const { chat_id: text } = await json(await server.call('POST', `/bots/${botId}/chats`));
    await server.call('POST', `/bots/${botId}/chats/${text}`, { json: { query: 'What does chlorophyll capture?' } });
    const { vision_chat_id: vision } = await json(await server.call('POST', `/bots/${botId}/vision-chats`));
    expect(
      (await list(`bots/${botId}`)).conversations.map((c: Record<string, unknown>) => [
        c.conversation_id,
        c.scope,
        c.kind,
        c.message_count,
      ]),
    ).toEqual([
      [text, 'bot', 'text', 1],
      [vision, 'bot', 'vision', 0],
    ]);

    const renamed = await server.call('PATCH', `/conversations/${first.session_id}`, {
      json: { title: '  Photosynthesis  ' },
    });
    expect(renamed.status).toBe(200);
    expect(await json(renamed)).toMatchObject({
      conversation_id: first.session_id,
      title: 'Photosynthesis',
      message_count: 2,
    });
    expect((await json(await server.call('GET', `/chat/sessions/${first.session_id}`))).title).toBe('Photosynthesis');
    expect(
      (await json(await server.call('PATCH', `/conversations/${text}`, { json: { title: null } }))).title,
    ).toBeNull();

    expect(await json(await server.call('DELETE', `/conversations/${text}`))).toEqual({
      status: 'deleted',
      conversation_id: text,
    });
    expect((await server.call('GET', `/chats/${text}`)).status).toBe(404);
    expect((await server.call('DELETE', `/conversations/${text}`)).status).toBe(404);
    expect(
      (await list(`bots/${botId}`)).conversations.map((c: { conversation_id: string }) => c.conversation_id),
    ).toEqual([vision]);
  });

  it('answers 404 for unknown owners and conversations, and 400 for a title too long', async () => {
    expect((await json(await server.call('GET', '/jobs/nope/conversations'))).error.code).toBe('JOB_NOT_FOUND');
    expect((await json(await server.call('GET', '/bots/nope/conversations'))).error.code).toBe('BOT_NOT_FOUND');
    const missing = await server.call('PATCH', '/conversations/nope', { json: { title: 'x' } });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('CONVERSATION_NOT_FOUND');
    expect((await server.call('PATCH', `/conversations/nope`, { json: { title: 'x'.repeat(201) } })).status).toBe(400);
  });

  it("shows a key scoped to a bot the bot's conversations and nothing of the job's", async () => {
    const key = await json(
      await server.call('POST', '/keys', { json: { name: 'bot-reader', role: 'reviewer', bots: [botId] } }),
    );
    const as = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'x-api-key': key.secret, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await as('GET', `/bots/${botId}/conversations`)).status).toBe(200);
    const jobList = await as('GET', `/jobs/${jobId}/conversations`);
    expect(jobList.status).toBe(404);
    expect((await jobList.json()).error.code).toBe('JOB_NOT_FOUND');
    const session = (await list(`jobs/${jobId}`)).conversations[0].conversation_id;
    const rename = await as('PATCH', `/conversations/${session}`, { title: 'mine now' });
    expect(rename.status).toBe(404);
    expect((await rename.json()).error.code).toBe('CONVERSATION_NOT_FOUND');
    expect((await list(`jobs/${jobId}`)).conversations[0].title).not.toBe('mine now');
  });
});

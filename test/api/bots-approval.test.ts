import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestServer } from '../helpers/app.js';
import { addBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { startServerWithModel } from '../helpers/embed-flow.js';

// A bot's answers can be held for approval as a job chat's are: one conversation model, one resume.

let server: TestServer;
let botId = '';

beforeAll(async () => {
  const root = topicsRoot('lectern-bot-approval-');
  server = await startServerWithModel({ document_roots: [root] });
  botId = (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } }))).bot_id;
  await addBotDocument(server, botId, join(root, 'topics.md'));
});
afterAll(async () => {
  await server?.close();
});

const newChat = async () => (await json(await server.call('POST', `/bots/${botId}/chats`))).chat_id as string;
const ask = async (chatId: string, body: Record<string, unknown>) =>
  server.call('POST', `/bots/${botId}/chats/${chatId}`, { json: body });
const resume = (chatId: string, body: Record<string, unknown>, reviewer = 'ada') =>
  server.call('POST', `/chats/${chatId}/resume`, { json: body, headers: { 'x-reviewer': reviewer } });

describe('bot answers held for approval', () => {
  it('holds the answer with a thread, shows the draft, and keeps it out of follow-ups until approved once', async () => {
    const chat = await newChat();
    const held = await json(await ask(chat, { query: 'What does chlorophyll capture?', require_approval: true }));
    expect(held).toMatchObject({ status: 'pending_review', thread_id: expect.any(String), review: null });
    expect(held.answer).toContain('sunlight');
    const history = (await json(await server.call('GET', `/chats/${chat}`))).messages;
    expect(history).toEqual([
      expect.objectContaining({
        message_id: held.message_id,
        status: 'pending_review',
        thread_id: held.thread_id,
        answer: held.answer,
      }),
    ]);

    const approved = await resume(chat, { thread_id: held.thread_id, action: 'approve' });
    expect(approved.status).toBe(200);
    expect(await json(approved)).toMatchObject({
      message_id: held.message_id,
      status: 'complete',
      answer: held.answer,
      citations: held.citations,
      review: { action: 'approve', reviewer_id: 'ada', at: expect.any(String) },
    });
    const again = await resume(chat, { thread_id: held.thread_id, action: 'reject' }, 'bob');
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('INVALID_STATE');
    expect((await json(await server.call('GET', `/chats/${chat}`))).messages[0]).toMatchObject({
      status: 'complete',
      review: { action: 'approve', reviewer_id: 'ada' },
    });
  });

  it("takes a reviewer's edit or rejection, and refuses threads of other chats and bad requests", async () => {
    const chat = await newChat();
    const one = await json(await ask(chat, { query: 'What does chlorophyll capture?', require_approval: true }));
    const two = await json(await ask(chat, { query: 'How is bread dough prepared?', require_approval: true }));
    const edited = await json(
      await resume(chat, { thread_id: one.thread_id, action: 'edit', edited_answer: 'Chlorophyll captures sunlight.' }),
    );
    expect(edited).toMatchObject({
      status: 'complete',
      answer: 'Chlorophyll captures sunlight.',
      citations: one.citations,
      review: { action: 'edit' },
    });
    const rejected = await json(await resume(chat, { thread_id: two.thread_id, action: 'reject' }));
    expect(rejected).toMatchObject({ status: 'rejected', answer: '', citations: [], review: { action: 'reject' } });

    const other = await newChat();
    const held = await json(await ask(other, { query: 'What does chlorophyll capture?', require_approval: true }));
    const elsewhere = await resume(chat, { thread_id: held.thread_id, action: 'approve' });
    expect(elsewhere.status).toBe(404);
    expect((await json(elsewhere)).error.code).toBe('THREAD_NOT_FOUND');
    expect(
      (await json(await resume('no-such-chat', { thread_id: held.thread_id, action: 'approve' }))).error.code,
    ).toBe('CHAT_NOT_FOUND');
    const noText = await resume(other, { thread_id: held.thread_id, action: 'edit' });
    expect(noText.status).toBe(400);
    const withSchema = await ask(other, { query: 'Which parts?', require_approval: true, schema: { type: 'object' } });
    expect(withSchema.status).toBe(400);
    expect((await json(withSchema)).error.code).toBe('VALIDATION_FAILED');
    expect(
      (await json(await server.call('GET', `/chats/${other}`))).messages.map((m: { status: string }) => m.status),
    ).toEqual(['pending_review']);
  });
});

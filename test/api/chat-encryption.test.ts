import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { extractiveBotChat, topicsRoot } from '../helpers/bot-flow.js';
import { chat, indexedJob } from '../helpers/chat-flow.js';
import { installTestModel, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { storeRows } from '../helpers/server-db.js';

// encrypt_chats: a bot's questions and answers are sealed before they reach SQLite, read back as they were
// asked and answered, still readable once encryption is turned off (the key stays), and refused with 409
// CHAT_KEY_MISSING, never garbled, under another key.

const QUESTION = 'What does chlorophyll capture?';
const root = topicsRoot('lectern-enc-roots-');
let dataDir = '';
let server: TestServer | undefined;
afterAll(async () => server?.close());

async function start(settings: Record<string, unknown>, env?: string): Promise<TestServer> {
  await server?.close();
  server = await startServer({
    dataDir,
    chatKey: env,
    settings: { workers: 1, embedding_model: TEST_MODEL, document_roots: [root], ...settings },
  });
  return server;
}

/** The words people wrote and were answered with, as stored (cited quotes are the documents' own words). */
async function stored(): Promise<string[]> {
  const rows = await storeRows<{ question: string; answer: string }>(
    dataDir,
    'SELECT question, answer FROM messages ORDER BY seq',
  );
  return rows.flatMap((r) => [r.question, r.answer]);
}

describe('encrypt_chats', () => {
  it('seals a bot chat at rest, reads it back, and keeps it readable when turned off; another key gets 409', async () => {
    dataDir = tempDir();
    await installTestModel(dataDir);
    const s = await start({ encrypt_chats: true });
    const { botId, chatId } = await extractiveBotChat(s, join(root, 'topics.md'));
    const answer = await json(await s.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: QUESTION } }));
    expect(answer.answer).toContain('sunlight');
    const follow = await json(
      await s.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: 'And what else?' } }),
    );
    expect(follow.answer.length).toBeGreaterThan(0);

    expect(await stored()).toHaveLength(4);
    for (const text of await stored()) expect(text).toMatch(/^enc:v1:[A-Za-z0-9+/=]+$/);
    expect((await json(await s.call('GET', `/chats/${chatId}`))).messages[0]).toMatchObject({
      question: QUESTION,
      answer: answer.answer,
    });
    expect(readFileSync(join(dataDir, 'chat.key'), 'utf8').trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);

    // Off: new messages are stored plain, the sealed ones still open with the key in the data folder.
    const off = await start({ encrypt_chats: false });
    expect((await json(await off.call('GET', `/chats/${chatId}`))).messages[0].question).toBe(QUESTION);
    await off.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: 'Plain question about bread?' } });
    expect((await stored())[4]).toBe('Plain question about bread?');

    // Another key (LECTERN_CHAT_KEY wins over the file): the sealed messages are refused, not garbled.
    const other = await start({ encrypt_chats: true }, Buffer.alloc(32, 7).toString('base64'));
    const refused = await other.call('GET', `/chats/${chatId}`);
    expect(refused.status).toBe(409);
    expect((await json(refused)).error.code).toBe('CHAT_KEY_MISSING');
  });

  it("seals a job chat session's questions and answers, read back as asked through the session", async () => {
    dataDir = tempDir();
    await installTestModel(dataDir);
    const s = await start({ encrypt_chats: true });
    const jobId = (await indexedJob(s, 'topics.md', TOPICS_MD)).job_id;
    const first = (await chat(s, { job_id: jobId, question: QUESTION, llm_provider: 'extractive' })).body;
    expect(first.answer).toContain('sunlight');
    const rows = await storeRows<Record<string, string>>(dataDir, 'SELECT question, draft, answer FROM messages');
    expect(rows).toHaveLength(1);
    for (const text of Object.values(rows[0]!)) expect(text).toMatch(/^enc:v1:/);
    const session = await json(await s.call('GET', `/chat/sessions/${first.session_id}`));
    expect(session.turns[0]).toMatchObject({ question: QUESTION, answer: first.answer });
    // A follow-up in the session reads the sealed history.
    const next = (
      await chat(s, {
        session_id: first.session_id,
        job_id: jobId,
        question: 'What else does it need?',
        llm_provider: 'extractive',
      })
    ).body;
    expect(next.answer.length).toBeGreaterThan(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { chat, indexedJob } from '../helpers/chat-flow.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';

// A job chat's answers are rated as a bot's are: one conversation model keeps both, and the rating shows on
// the turn, survives a restart and is sealed at rest like the rest of the chat.

let server: TestServer;
let dataDir = '';
let jobId = '';

const start = () => startServer({ dataDir, settings: { embedding_model: TEST_MODEL, encrypt_chats: true } });

beforeAll(async () => {
  dataDir = tempDir();
  server = await start();
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
});
afterAll(async () => {
  await server?.close();
});

const rate = (sessionId: string, turnId: string, body: unknown) =>
  server.call('POST', `/chat/sessions/${sessionId}/turns/${turnId}/feedback`, { json: body });

describe('ratings on job chats', () => {
  it('rates a turn up or down with a note, shows it on the session, and replaces it when rated again', async () => {
    const first = (
      await chat(server, { job_id: jobId, question: 'What does chlorophyll capture?', llm_provider: 'extractive' })
    ).body;
    const { session_id: sessionId, turn_id: turnId } = first;
    const before = await json(await server.call('GET', `/chat/sessions/${sessionId}`));
    expect(before.turns[0]).toMatchObject({ turn_id: turnId, rating: null, rating_note: null });

    const up = await rate(sessionId, turnId, { rating: 'up', note: 'quotes the right sentence' });
    expect(up.status).toBe(200);
    expect(await json(up)).toEqual({
      session_id: sessionId,
      turn_id: turnId,
      rating: 'up',
      note: 'quotes the right sentence',
    });
    expect((await json(await server.call('GET', `/chat/sessions/${sessionId}`))).turns[0]).toMatchObject({
      rating: 'up',
      rating_note: 'quotes the right sentence',
    });

    expect(await json(await rate(sessionId, turnId, { rating: 'down' }))).toEqual({
      session_id: sessionId,
      turn_id: turnId,
      rating: 'down',
      note: null,
    });
    await server.close();
    server = await start();
    const after = await json(await server.call('GET', `/chat/sessions/${sessionId}`));
    expect(after.turns[0]).toMatchObject({ turn_id: turnId, rating: 'down', rating_note: null, answer: first.answer });
  });

  it('answers 404 for a turn of another session or none, and 400 for a rating that is neither up nor down', async () => {
    const a = (
      await chat(server, { job_id: jobId, question: 'What does chlorophyll capture?', llm_provider: 'extractive' })
    ).body;
    const b = (
      await chat(server, { job_id: jobId, question: 'Which gas do plants release?', llm_provider: 'extractive' })
    ).body;
    const other = await rate(a.session_id, b.turn_id, { rating: 'up' });
    expect(other.status).toBe(404);
    expect((await json(other)).error.code).toBe('MESSAGE_NOT_FOUND');
    expect((await json(await rate('no-such-session', a.turn_id, { rating: 'up' }))).error.code).toBe(
      'SESSION_NOT_FOUND',
    );
    const bad = await rate(a.session_id, a.turn_id, { rating: 'sideways' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('VALIDATION_FAILED');
    expect((await json(await server.call('GET', `/chat/sessions/${a.session_id}`))).turns[0].rating).toBeNull();
  });
});

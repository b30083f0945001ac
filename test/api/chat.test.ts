import { describe, expect, it } from 'vitest';
import { json, listAll, startServer } from '../helpers/app.js';
import {
  chat,
  chatStream,
  expectStreamedAnswer,
  indexedJob,
  installChatModel,
  SMOLLM2,
  waitForTurn,
} from '../helpers/chat-flow.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { useServer } from '../helpers/use-server.js';

// The real SmolLM2-135M-Instruct (Q4_1, from its PyPI wheel) through the real llama host. Answers are
// greedy (temperature 0), so they are the same on every run; max_tokens stays small for 2 shared cores.
const server = useServer(() => startServer({ settings: { embedding_model: TEST_MODEL, llm_threads: 1 } }));
let jobId: string;
let chunkOf: (section: string) => string;

const health = async () => {
  const res = await server.call('GET', '/health');
  expect(res.status).toBe(200);
  return json(res);
};

describe('grounded chat with SmolLM2', () => {
  it('starts without any model: /health answers, chat is 503 MODEL_NOT_INSTALLED saying how to get it', async () => {
    const h = await health();
    expect(h).toMatchObject({ status: 'ok', llm: { running: false } });
    const res = await chat(server, { job_id: 'any', question: 'What is this about?' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('MODEL_NOT_INSTALLED');
    expect(res.body.error.message).toContain(`lectern models pull ${SMOLLM2}`);
    expect(res.body.error.message).toContain(`lectern models import ${SMOLLM2} <path>`);
    expect((await health()).llm.running).toBe(false);

    await installChatModel(server.dataDir, SMOLLM2);
    jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
    const chunks = await listAll(server, `/jobs/${jobId}/chunks`);
    chunkOf = (section) => chunks.find((c) => c.section_path[0] === section)!.chunk_id;
    // Installing a model starts nothing either: the host starts with the first answer.
    expect((await health()).llm.running).toBe(false);
  });

  let sessionId: string;
  it('answers from the one chunk that holds the answer and cites it with its page', async () => {
    const created = await server.call('POST', '/chat/sessions', {
      json: { job_id: jobId, title: 'plants' },
      headers: { 'x-reviewer': 'grace' },
    });
    expect(created.status).toBe(201);
    sessionId = (await json(created)).session_id;
    const res = await chat(server, {
      session_id: sessionId,
      job_id: jobId,
      question: 'What does chlorophyll capture?',
      config: { llm_provider: 'local', llm_model: SMOLLM2, top_k: 3, max_tokens: 40 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      session_id: sessionId,
      status: 'complete',
      not_found: false,
      llm_provider: 'local',
      llm_model: SMOLLM2,
      thread_id: null,
    });
    expect(res.body.sources[0]).toMatchObject({ label: 'S1', chunk_id: chunkOf('Photosynthesis'), page_numbers: [1] });
    expect(res.body.citations[0]).toEqual({
      label: expect.any(String),
      chunk_id: chunkOf('Photosynthesis'),
      page_numbers: [1],
    });
    expect(res.body.answer).toMatch(/sunlight/i);
    expect((await health()).llm.running).toBe(true);
  });

  it('says it did not find an answer when nothing relevant is in the job, instead of inventing one', async () => {
    const res = await chat(server, {
      session_id: sessionId,
      question: 'Who won the 1998 football world cup?',
      max_tokens: 40,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', not_found: true, sources: [], citations: [] });
    expect(res.body.answer).toMatch(/could not find/);
  });

  it('uses the earlier turns of the session for a follow-up question', async () => {
    const followUp = { question: 'Which gas does it release?', max_tokens: 24 };
    const inSession = await chat(server, { session_id: sessionId, ...followUp });
    expect(inSession.status).toBe(200);
    expect(inSession.body.sources[0].chunk_id).toBe(chunkOf('Photosynthesis'));
    expect(inSession.body.answer).toMatch(/oxygen/i);
    const alone = await chat(server, { job_id: jobId, ...followUp });
    // The session's earlier question and answer are in the prompt: more prompt tokens than a fresh session's.
    expect(inSession.body.usage.prompt_tokens).toBeGreaterThan(alone.body.usage.prompt_tokens);
    // The llama host keeps what it read: the fresh session's prompt starts as the last one did (the system
    // message), and only the rest is read again.
    expect(alone.body.usage.cached_prompt_tokens).toBeGreaterThan(10);
    expect(alone.body.usage.cached_prompt_tokens).toBeLessThan(alone.body.usage.prompt_tokens);
    const session = await json(await server.call('GET', `/chat/sessions/${sessionId}`));
    expect(session).toMatchObject({
      session_id: sessionId,
      job_id: jobId,
      title: 'plants',
      created_by: 'grace',
      turn_count: 3,
    });
    expect(session.turns.map((t: { question: string }) => t.question)).toEqual([
      'What does chlorophyll capture?',
      'Who won the 1998 football world cup?',
      'Which gas does it release?',
    ]);
    expect(session.turns[0]).toMatchObject({
      seq: 1,
      status: 'complete',
      sources: expect.any(Array),
      citations: expect.any(Array),
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
  });

  it('require_approval: a draft waits as pending_review; approve, edit and reject finish it and record who did it', async () => {
    const ask = async () => {
      const res = await chat(
        server,
        { session_id: sessionId, question: 'What does chlorophyll capture?', require_approval: true, max_tokens: 16 },
        { 'x-reviewer': 'grace' },
      );
      expect(res.body).toMatchObject({
        status: 'pending_review',
        thread_id: expect.any(String),
        sources: expect.any(Array),
      });
      expect(res.body.answer.length).toBeGreaterThan(0);
      return res.body;
    };
    const resume = (body: Record<string, unknown>, reviewer = 'ada') =>
      server.call('POST', '/chat/resume', {
        json: { session_id: sessionId, ...body },
        headers: { 'x-reviewer': reviewer },
      });

    const a = await ask();
    const pending = (await json(await server.call('GET', `/chat/sessions/${sessionId}`))).turns.find(
      (t: { turn_id: string }) => t.turn_id === a.turn_id,
    );
    expect(pending).toMatchObject({
      status: 'pending_review',
      answer: null,
      draft: a.answer,
      thread_id: a.thread_id,
      asked_by: 'grace',
      review: null,
    });
    const approved = await resume({ thread_id: a.thread_id, action: 'approve' });
    expect(approved.status).toBe(200);
    expect(await json(approved)).toMatchObject({
      status: 'complete',
      answer: a.answer,
      review: { action: 'approve', reviewer_id: 'ada' },
    });
    const twice = await resume({ thread_id: a.thread_id, action: 'reject' });
    expect(twice.status).toBe(409);
    expect((await json(twice)).error.code).toBe('INVALID_STATE');
    const wrong = await resume({ thread_id: 'no-such-thread', action: 'approve' });
    expect(wrong.status).toBe(404);
    expect((await json(wrong)).error.code).toBe('THREAD_NOT_FOUND');

    const e = await ask();
    expect((await resume({ thread_id: e.thread_id, action: 'edit' })).status).toBe(400);
    const edited = await json(
      await resume(
        { thread_id: e.thread_id, action: 'edit', edited_answer: 'Chlorophyll captures sunlight [S1].' },
        'linus',
      ),
    );
    expect(edited).toMatchObject({
      status: 'complete',
      answer: 'Chlorophyll captures sunlight [S1].',
      review: { action: 'edit', reviewer_id: 'linus' },
    });
    expect(edited.citations).toEqual([{ label: 'S1', chunk_id: chunkOf('Photosynthesis'), page_numbers: [1] }]);

    const r = await ask();
    const rejected = await json(await resume({ thread_id: r.thread_id, action: 'reject' }, 'barbara'));
    expect(rejected).toMatchObject({
      status: 'rejected',
      answer: '',
      citations: [],
      review: { action: 'reject', reviewer_id: 'barbara' },
    });

    const history = (await json(await server.call('GET', `/chat/sessions/${sessionId}`))).turns.slice(-3);
    expect(
      history.map((t: any) => [t.status, t.asked_by, t.review.action, t.review.reviewer_id, t.draft.length > 0]),
    ).toEqual([
      ['complete', 'grace', 'approve', 'ada', true],
      ['complete', 'grace', 'edit', 'linus', true],
      ['rejected', 'grace', 'reject', 'barbara', true],
    ]);
    expect(history[1].answer).toBe('Chlorophyll captures sunlight [S1].');
    expect(history[2].answer).toBeNull();
    // Resuming in another session is not finding the thread.
    const other = await server.call('POST', '/chat/resume', {
      json: { session_id: 'another', thread_id: r.thread_id, action: 'approve' },
    });
    expect(other.status).toBe(404);
  });

  it('streams: sources first, then the tokens, then done with the stored answer; hanging up (after a token or before the first) stops generation and stores the turn as cancelled', async () => {
    const { res, events } = await chatStream(server, {
      job_id: jobId,
      question: 'What does chlorophyll capture?',
      top_k: 2,
      max_tokens: 24,
    });
    const { sources, done } = expectStreamedAnswer({ res, events });
    expect(sources.sources[0].chunk_id).toBe(chunkOf('Photosynthesis'));
    expect(done).toMatchObject({ llm_provider: 'local', llm_model: SMOLLM2 });
    expect(done.citations[0].chunk_id).toBe(chunkOf('Photosynthesis'));

    const cut = await chatStream(
      server,
      { job_id: jobId, question: 'Describe in detail how volcanoes erupt.', max_tokens: 400 },
      (e) => e.event === 'token',
    );
    expect(cut.events.map((e) => e.event)).toEqual(['sources', 'token']);
    const turn = await waitForTurn(server, cut.events[0]!.data.session_id, 1);
    // Cancelled (not complete) means llama stopped on the abort, not at the end of its answer.
    expect(turn).toMatchObject({ status: 'cancelled', answer: null, llm_model: SMOLLM2 });
    expect(turn.usage.completion_tokens).toBeLessThan(400);

    // Hanging up before the first token, while llama is still reading the prompt, cancels as well.
    const early = await chatStream(
      server,
      { job_id: jobId, question: 'What do volcanoes release when they erupt?', max_tokens: 400 },
      (e) => e.event === 'sources',
    );
    expect(early.events.map((e) => e.event)).toEqual(['sources']);
    expect(early.events[0]!.data.sources.length).toBeGreaterThan(0);
    const earlyTurn = await waitForTurn(server, early.events[0]!.data.session_id, 1);
    expect(earlyTurn).toMatchObject({ status: 'cancelled', error: null, answer: null });
  });
});

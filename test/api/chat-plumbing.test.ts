import { beforeAll, describe, expect, it } from 'vitest';
import { json, listAll, startServer } from '../helpers/app.js';
import {
  chat,
  chatStream,
  expectStreamedAnswer,
  indexedJob,
  installChatModel,
  STORIES,
  waitForTurn,
} from '../helpers/chat-flow.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { useServer } from '../helpers/use-server.js';

// stories260K tells stories and answers nothing: here it only proves loading, streaming and cancelling
// through the real llama host. Answers that must be right are in chat.test.ts with SmolLM2.
const server = useServer(() =>
  startServer({ settings: { embedding_model: TEST_MODEL, chat_model: STORIES, llm_threads: 1 } }),
);
let jobId: string;
beforeAll(async () => {
  await installChatModel(server.dataDir, STORIES);
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
});

describe('chat plumbing: streaming, cancellation, the extractive provider', () => {
  it('streams sources first, then tokens, then done with the stored answer', async () => {
    const { res, events } = await chatStream(server, {
      job_id: jobId,
      question: 'How does chlorophyll use sunlight?',
      config: { max_tokens: 24 },
    });
    const { sources, done } = expectStreamedAnswer({ res, events });
    expect(sources.sources[0].section_path).toEqual(['Photosynthesis']);
    expect(done).toMatchObject({ llm_provider: 'local', llm_model: STORIES });
    expect(done.usage.completion_tokens).toBeGreaterThan(0);
    expect(done.usage.completion_tokens).toBeLessThanOrEqual(24);
  });

  it('stops generating when the client hangs up: the turn is stored as cancelled, far short of max_tokens', async () => {
    const { events } = await chatStream(
      server,
      { job_id: jobId, question: 'Tell me about volcanoes', max_tokens: 3000 },
      (e) => e.event === 'token',
    );
    expect(events.map((e) => e.event)).toEqual(['sources', 'token']);
    const turn = await waitForTurn(server, events[0]!.data.session_id, 1);
    expect(turn.status).toBe('cancelled');
    expect(turn.usage.completion_tokens).toBeLessThan(3000);
    // The host is free again at once: a short answer right after is not queued behind 3,000 tokens.
    const next = await chat(server, { job_id: jobId, question: 'Tell me about volcanoes', max_tokens: 8 });
    expect(next.status).toBe(200);
    expect(next.body.usage.completion_tokens).toBeLessThanOrEqual(8);
  });

  it('extractive: quotes the best supporting sentences verbatim from the chunks it cites', async () => {
    const res = await chat(server, {
      job_id: jobId,
      question: 'What does chlorophyll turn carbon dioxide and water into?',
      llm_provider: 'extractive',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'complete',
      llm_provider: 'extractive',
      llm_model: null,
      not_found: false,
      cited_by: 'model',
    });
    const quotes = [...res.body.answer.matchAll(/"([^"]+)" \[(S\d+)\]/g)].map((m) => ({ text: m[1], label: m[2] }));
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      const cited = res.body.citations.find((c: { label: string }) => c.label === q.label);
      const source = res.body.sources.find((s: { chunk_id: string }) => s.chunk_id === cited.chunk_id);
      expect(source.text).toContain(q.text);
    }
    expect(res.body.citations[0]).toMatchObject({ label: 'S1', page_numbers: [1] });
    expect(res.body.sources.find((s: { label: string }) => s.label === 'S1').section_path).toEqual(['Photosynthesis']);
    expect(quotes[0]!.text).toContain('glucose');
  });

  it('extractive streams too, and says so when nothing relevant was retrieved', async () => {
    const { events } = await chatStream(server, {
      job_id: jobId,
      question: 'Who won the 1998 football world cup?',
      config: { llm_provider: 'extractive' },
    });
    expect(events.map((e) => e.event)).toEqual(['sources', 'token', 'done']);
    expect(events[0]!.data.sources).toEqual([]);
    expect(events[2]!.data).toMatchObject({ not_found: true, citations: [], sources: [] });
  });

  it('errors before the stream opens answer as JSON: 404 session, 409 job not embedded, 404 unknown chat model, 400 body', async () => {
    expect((await chat(server, { session_id: 'nope', question: 'x' })).body.error.code).toBe('SESSION_NOT_FOUND');
    const noSession = await server.call('GET', '/chat/sessions/nope');
    expect(noSession.status).toBe(404);
    expect((await json(noSession)).error.code).toBe('SESSION_NOT_FOUND');
    const noJob = await server.call('POST', '/chat/sessions', { json: { job_id: 'nope' } });
    expect(noJob.status).toBe(404);
    expect((await json(noJob)).error.code).toBe('JOB_NOT_FOUND');
    const upload = await server.upload('plain.md', new TextEncoder().encode('# T\n\nSome text here.\n'));
    const plain = await json(upload);
    await server.waitFor(plain.job_id);
    const notEmbedded = await chat(server, { job_id: plain.job_id, question: 'x', stream: true });
    expect(notEmbedded.status).toBe(409);
    expect(notEmbedded.body.error.code).toBe('INVALID_STATE');
    const embeddingModel = await chat(server, { job_id: jobId, question: 'x', llm_model: TEST_MODEL });
    expect(embeddingModel.status).toBe(404);
    expect(embeddingModel.body.error.code).toBe('MODEL_NOT_FOUND');
    expect((await chat(server, { job_id: jobId, question: 'x', llm_provider: 'gpt' })).status).toBe(400);
    expect((await chat(server, { question: 'x' })).status).toBe(400);
    expect((await chat(server, { job_id: 'nope', question: 'x', llm_provider: 'extractive' })).body.error.code).toBe(
      'JOB_NOT_FOUND',
    );
  });

  // Last: it rejects a chunk of the shared job.
  it('answers from approved content only: a chunk rejected after embedding is no longer a source', async () => {
    const question = 'What does chlorophyll turn carbon dioxide and water into?';
    const before = await chat(server, { job_id: jobId, question, llm_provider: 'extractive' });
    const photo = (await listAll(server, `/jobs/${jobId}/chunks`)).find((c) => c.section_path[0] === 'Photosynthesis')!;
    expect(before.body.sources.map((s: { chunk_id: string }) => s.chunk_id)).toContain(photo.chunk_id);
    const patched = await server.call('PATCH', `/jobs/${jobId}/chunks/${photo.chunk_id}`, {
      json: { version: photo.version, status: 'rejected' },
    });
    expect(patched.status).toBe(200);
    const after = await chat(server, { job_id: jobId, question, llm_provider: 'extractive' });
    expect(after.body.sources.map((s: { chunk_id: string }) => s.chunk_id)).not.toContain(photo.chunk_id);
    expect(after.body.answer).not.toContain('glucose');
  });
});

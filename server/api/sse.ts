import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { describeFailure } from '../core/errors.js';

/**
 * A Server-Sent Events stream on a hijacked reply. `closed` turns true (and `signal` aborts) as soon as
 * the client goes away, so the work feeding the stream can stop instead of talking to nobody.
 */
export function openSse(reply: FastifyReply) {
  const controller = new AbortController();
  reply.hijack();
  const res = reply.raw;
  // What hooks set before the stream (CORS for the desktop window) is sent with it.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // Proxies such as nginx would otherwise hold the tokens back until the answer is done.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return {
    signal: controller.signal,
    get closed() {
      return controller.signal.aborted;
    },
    /** One event; with `id`, an `id:` line too, which a client sends back as Last-Event-ID when it reconnects. */
    send(event: string, data: unknown, id?: string): void {
      if (!controller.signal.aborted)
        res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    /** A bare `data:` line, as OpenAI's stream has them (no event names; `[DONE]` is sent as it is). */
    data(data: unknown): void {
      if (!controller.signal.aborted) res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    },
    end(): void {
      if (!controller.signal.aborted) res.end();
    },
  };
}

/** Aborts when the client of a plain (non-streamed) request hangs up before the answer is sent. */
export function abortOnHangUp(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export interface AnswerEvents<S> {
  signal: AbortSignal;
  onSources: (e: S) => void;
  onToken: (text: string) => void;
}

/**
 * Streams one answer (job chat or bot chat) as Server-Sent Events: `sources` once retrieval is done, a
 * `token` per piece of text, then `done` with the answer, or `error` with its code; a hang-up aborts it.
 */
export async function streamAnswer<S>(
  reply: FastifyReply,
  log: FastifyBaseLogger,
  run: (ev: AnswerEvents<S>) => Promise<unknown>,
): Promise<FastifyReply> {
  const sse = openSse(reply);
  try {
    const done = await run({
      signal: sse.signal,
      onSources: (e) => sse.send('sources', e),
      onToken: (text) => sse.send('token', { text }),
    });
    sse.send('done', done);
  } catch (err) {
    log.warn({ err }, 'answer stream failed');
    sse.send('error', describeFailure(err));
  }
  sse.end();
  return reply;
}

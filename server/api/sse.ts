import type { FastifyReply } from 'fastify';

/**
 * A Server-Sent Events stream on a hijacked reply. `closed` turns true (and `signal` aborts) as soon as
 * the client goes away, so the work feeding the stream can stop instead of talking to nobody.
 */
export function openSse(reply: FastifyReply) {
  const controller = new AbortController();
  reply.hijack();
  const res = reply.raw;
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
    send(event: string, data: unknown): void {
      if (!controller.signal.aborted) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
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

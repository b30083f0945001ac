/** Reading Server-Sent Events the way a client does, as they arrive. */

export interface SseEvent {
  event: string;
  data: any;
  /** The event's `id:` line, when it has one */
  id?: string;
  /** ms since the request was sent */
  at: number;
}

/** The events of a text/event-stream body as they arrive: each an `event:` line and one `data:` line of JSON (and an `id:` line, if sent). */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: any; id?: string }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const part of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(part, { stream: true });
    let sep: number;
    while ((sep = buffered.indexOf('\n\n')) >= 0) {
      const raw = buffered.slice(0, sep);
      buffered = buffered.slice(sep + 2);
      const id = /^id: ?(.*)$/m.exec(raw)?.[1];
      yield {
        event: /^event: (.*)$/m.exec(raw)?.[1] ?? 'message',
        data: JSON.parse(/^data: (.*)$/m.exec(raw)?.[1] ?? 'null'),
        ...(id === undefined ? {} : { id }),
      };
    }
  }
}

/**
 * Sends a request and reads its Server-Sent Events until the server ends the stream; `stopAfter` hangs up
 * (aborts the request) once it returns true for an event, as a client closing the page would.
 */
export async function sseRequest(
  url: string,
  init: RequestInit,
  stopAfter?: (e: SseEvent) => boolean,
): Promise<{ res: Response; events: SseEvent[] }> {
  const started = performance.now();
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const events: SseEvent[] = [];
  if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) return { res, events };
  try {
    for await (const { event, data, id } of sseEvents(res.body)) {
      const e = { event, data, ...(id === undefined ? {} : { id }), at: performance.now() - started };
      events.push(e);
      if (stopAfter?.(e)) {
        controller.abort();
        return { res, events };
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return { res, events };
}

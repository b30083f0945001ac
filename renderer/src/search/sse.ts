export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Reads a Server-Sent Events body as it arrives, calling `onEvent` per event (blank-line separated;
 * `event:` names it, `data:` lines join with newlines, comments and unknown fields ignored).
 */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    const parts = buffer.split(/\r?\n\r?\n/);
    buffer = done ? '' : (parts.pop() ?? '');
    for (const part of parts) {
      let event = 'message';
      const data: string[] = [];
      for (const line of part.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent({ event, data: data.join('\n') });
    }
    if (done) return;
  }
}

/**
 * An answer asked for with `stream: true`: the events' JSON data (and raw text) go to `onEvent` as they arrive and the
 * `done` event's data is returned; a server that answered plain JSON instead gives that answer at once.
 * Undefined when the stream ended without `done` (it broke off, or an `error` event ended it).
 */
export async function streamedAnswer<T, E>(
  res: Response,
  onEvent: (event: string, data: E, raw: string) => void,
): Promise<T | undefined> {
  if (!res.headers.get('content-type')?.includes('text/event-stream') || !res.body) return (await res.json()) as T;
  let done: T | undefined;
  await readSse(res.body, (e) => {
    const data = JSON.parse(e.data) as unknown;
    if (e.event === 'done') done = data as T;
    else onEvent(e.event, data as E, e.data);
  });
  return done;
}

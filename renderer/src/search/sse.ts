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

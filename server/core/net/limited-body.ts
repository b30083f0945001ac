import { AppError } from '../errors.js';

export const tooLarge = (origin: string, limit: number): AppError =>
  new AppError('RESPONSE_TOO_LARGE', `the answer from ${origin} is larger than ${limit} bytes`, {
    origin,
    max_bytes: limit,
  });

/**
 * `source` as a stream that errors with RESPONSE_TOO_LARGE once more than `limit` bytes came (at once when
 * an unencoded answer declares more), and whose other errors go through `translate`. `settle` runs once,
 * when the stream ends, errors or is cancelled, so the caller can stop its timers. Chunks are passed on as
 * they arrive (no high-water mark): a streamed answer streams.
 */
export function limitedBody(
  source: ReadableStream<Uint8Array>,
  o: {
    origin: string;
    limit: number;
    declaredLength: number | undefined;
    translate: (err: unknown) => unknown;
    settle: () => void;
  },
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let received = 0;
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    o.settle();
  };
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, err: unknown) => {
    settle();
    controller.error(err);
    // The rest is not wanted: cancelling closes the connection instead of reading on.
    reader.cancel(err).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (o.declaredLength !== undefined && o.declaredLength > o.limit) fail(controller, tooLarge(o.origin, o.limit));
      },
      async pull(controller) {
        let part: ReadableStreamReadResult<Uint8Array>;
        try {
          part = await reader.read();
        } catch (err) {
          settle();
          controller.error(o.translate(err));
          return;
        }
        if (part.done) {
          settle();
          controller.close();
          return;
        }
        received += part.value.byteLength;
        if (received > o.limit) fail(controller, tooLarge(o.origin, o.limit));
        else controller.enqueue(part.value);
      },
      async cancel(reason) {
        settle();
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/** Every chunk of `body` in one array. */
export async function readAll(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  for await (const part of body as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

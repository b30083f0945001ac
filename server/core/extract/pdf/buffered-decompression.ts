/**
 * A DecompressionStream that inflates in one call at the end. pdf.js inflates every content stream, font
 * program and image through the global DecompressionStream, and Node's wraps a zlib stream in web-stream
 * adapters whose per-stream cost dwarfs the inflating itself: the 187 streams of a two-page TeX paper took
 * 70 ms through it against 2.5 ms through zlib.inflateSync, and 16 ms through this class.
 *
 * It is still a TransformStream with the standard's constructor, formats and errors, so anything else in
 * the thread that uses DecompressionStream works as before; it only gives its output in one piece when
 * the input ends, which is all pdf.js (write once, close, read to the end) asks of it.
 */
import { constants as bufferConstants } from 'node:buffer';
import { gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { allowanceExceeded, chargeInflated, inflateAllowance } from '../inflate-budget.js';

const INFLATE: Record<string, (data: Buffer, options: ZlibOptions) => Buffer> = {
  deflate: inflateSync,
  'deflate-raw': inflateRawSync,
  gzip: gunzipSync,
};

function bytesOf(chunk: unknown): Buffer {
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return Buffer.from(chunk);
  throw new TypeError('DecompressionStream accepts only ArrayBuffer or ArrayBufferView chunks');
}

/**
 * Inflates within the thread's decompression budget (inflate-budget.ts): zlib stops at the allowance, so a
 * bomb costs at most the part limit, never its full size. pdf.js falls back to its own decoder when this
 * throws, and the budget refuses that one too.
 */
function inflateWithin(inflate: (data: Buffer, options: ZlibOptions) => Buffer, data: Buffer): Uint8Array {
  let out: Buffer;
  try {
    out = inflate(data, { maxOutputLength: Math.min(inflateAllowance(), bufferConstants.MAX_LENGTH) });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') allowanceExceeded();
    throw err;
  }
  chargeInflated(out.length);
  // pdf.js keeps this array as the stream's bytes (patched: no copy) and may transfer its ArrayBuffer (an
  // image mask): it must own that buffer, never share Node's small-buffer pool or a larger zlib chunk.
  return out.byteOffset === 0 && out.buffer.byteLength === out.byteLength ? out : new Uint8Array(out);
}

export class BufferedDecompressionStream extends TransformStream<BufferSource, Uint8Array> {
  /**
   * What one of these streams gives for `data` written whole, without a stream: pdf.js (patched) calls this
   * when it finds it, since even this class's web-stream plumbing cost ~7x the inflating (a two-page TeX
   * paper's 187 streams: ~17 ms a reading against ~2.5 ms of zlib). Same formats, budget and errors.
   */
  static inflateNow(format: string, data: BufferSource): Uint8Array {
    const inflate = INFLATE[format];
    if (!inflate) throw new TypeError(`Unsupported compression format: '${format}'`);
    // No copy: zlib has read all of it before this returns.
    return inflateWithin(inflate, bytesOf(data));
  }

  constructor(format: string) {
    const inflate = INFLATE[format];
    if (!inflate) throw new TypeError(`Unsupported compression format: '${format}'`);
    const parts: Buffer[] = [];
    super({
      // Copied: the writer may reuse its buffer once the write has resolved.
      transform: (chunk) => void parts.push(Buffer.from(bytesOf(chunk))),
      flush: (controller) =>
        controller.enqueue(inflateWithin(inflate, parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts))),
    });
  }
}

/** Puts the buffered stream in place of this thread's DecompressionStream. */
export function useBufferedDecompression(): void {
  (globalThis as { DecompressionStream?: unknown }).DecompressionStream = BufferedDecompressionStream;
}

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { GuardedFetch, GuardedResponse } from '../core/net/types.js';
import { APPROXIMATE_TOLERANCE } from './catalog.js';
import { ModelError } from './model-error.js';

export interface DownloadProgress {
  file: string;
  receivedBytes: number;
  totalBytes: number;
  /** `verify` once every byte is on disk and its sha256 is being computed (the file is not usable yet). */
  phase?: 'download' | 'verify';
}

export interface DownloadOptions {
  url: string;
  dest: string;
  /** The exact bytes, when known; else `approxSize` bounds the size the host announces. */
  size?: number;
  /** A rounded published size: the host must announce within APPROXIMATE_TOLERANCE of it. */
  approxSize?: number;
  /** Unset: the file is kept whatever its sha256, which is returned for the caller to record. */
  sha256?: string;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  /** The guarded fetch every download goes through. */
  net: GuardedFetch;
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

async function sizeOf(path: string): Promise<number> {
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

/** Bytes read ahead of the disk at most; past this the download waits for its writes. */
const MAX_UNWRITTEN = 16 * 1024 * 1024;

/**
 * Appends the body to `part`, reading it as fast as it comes and writing each chunk in order. When the
 * connection breaks, every chunk received is written before the error is reported: a pipeline into a
 * write stream destroyed the stream with what it still buffered, so on a loaded machine (slow writes)
 * half of the bytes received were lost and the resumed download asked for them again. Reading ahead
 * of the disk also keeps the bytes out of the HTTP client's buffers, which a broken connection drops.
 */
async function writeBody(
  body: ReadableStream<Uint8Array>,
  part: string,
  start: number,
  total: number,
  opts: DownloadOptions,
): Promise<void> {
  const file = await open(part, start > 0 ? 'a' : 'w');
  let written = start;
  let unwritten = 0;
  let writes: Promise<void> = Promise.resolve();
  const append = (chunk: Uint8Array): void => {
    unwritten += chunk.byteLength;
    writes = writes.then(async () => {
      await file.write(chunk);
      unwritten -= chunk.byteLength;
      written += chunk.byteLength;
      opts.onProgress?.({ file: opts.dest, receivedBytes: written, totalBytes: total, phase: 'download' });
    });
  };
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      append(chunk);
      if (unwritten > MAX_UNWRITTEN) await writes;
    }
  } finally {
    await writes.finally(() => file.close());
  }
}

/** The whole file's size as the host announces it: Content-Range's total for a resumed answer, else its length. */
function announcedSize(res: GuardedResponse, resumed: boolean): number | undefined {
  if (resumed) {
    const total = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
    return total === undefined ? undefined : Number(total);
  }
  const length = res.headers.get('content-length');
  // A compressed answer's length is not the file's.
  return length === null || res.headers.has('content-encoding') ? undefined : Number(length);
}

/** Refuses, before a byte is written, a file whose announced size is not the one the catalog expects. */
function checkAnnounced(opts: DownloadOptions, announced: number | undefined): void {
  const refuse = (expected: string): never => {
    throw new ModelError(
      'MODEL_CHECKSUM_MISMATCH',
      `${opts.url} announces ${announced ?? 'no'} bytes; expected ${expected}: not downloaded`,
      { url: opts.url, size: announced ?? null },
    );
  };
  if (opts.size !== undefined) {
    if (announced !== undefined && announced !== opts.size) refuse(`${opts.size} bytes`);
    return;
  }
  const approx = opts.approxSize ?? 0;
  const about = `about ${approx} bytes (within ${APPROXIMATE_TOLERANCE * 100}%)`;
  // Without a stated size nothing would bound what is kept: an error page would do.
  if (announced === undefined || Math.abs(announced - approx) > approx * APPROXIMATE_TOLERANCE) refuse(about);
}

/**
 * Downloads into `<dest>.part`, resuming from its length with a Range request, then checks size and
 * sha256 before renaming it to `dest`: a file at `dest` is always complete and verified. With no exact
 * size, the size the host announces (checked against the rounded one) is the size the file must have;
 * with no sha256, the one computed is returned for the caller to record.
 */
export async function downloadVerified(opts: DownloadOptions): Promise<{ size: number; sha256: string }> {
  const part = `${opts.dest}.part`;
  await mkdir(dirname(opts.dest), { recursive: true });
  let have = await sizeOf(part);
  if (opts.size !== undefined && have > opts.size) {
    await rm(part, { force: true });
    have = 0;
  }
  let total = opts.size ?? opts.approxSize ?? 0;
  // Told before the request, so a resumed download shows where it starts from.
  opts.onProgress?.({ file: opts.dest, receivedBytes: have, totalBytes: total, phase: 'download' });
  if (opts.size === undefined || have < opts.size) {
    const headers: Record<string, string> = have > 0 ? { range: `bytes=${have}-` } : {};
    let res: GuardedResponse;
    try {
      // Hosts redirect to their CDNs (each hop is checked again). The file's size bounds the body, and a
      // large file may take long: no overall limit, but a stalled one still fails (NetPolicy.totalTimeoutMs).
      const maxBytes = opts.size ?? Math.ceil((opts.approxSize ?? 0) * (1 + APPROXIMATE_TOLERANCE));
      res = await opts.net(opts.url, { headers, signal: opts.signal, maxBytes, totalTimeoutMs: 0 });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (opts.signal?.aborted || code === 'URL_INVALID' || code === 'URL_NOT_ALLOWED') throw err;
      throw new ModelError('MODEL_DOWNLOAD_FAILED', `cannot download ${opts.url}: ${(err as Error).message}`, {
        url: opts.url,
      });
    }
    // A server that ignores Range answers 200 with the whole file: start over rather than append it.
    const append = have > 0 && res.status === 206;
    const ok = res.status >= 200 && res.status < 300;
    if (!(ok || res.status === 416) || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new ModelError('MODEL_DOWNLOAD_FAILED', `${opts.url} answered ${res.status}`, {
        url: opts.url,
        status: res.status,
      });
    }
    // 416: the part already holds the whole file (the checks below tell); its short body is not wanted.
    if (res.status === 416) {
      await res.body.cancel().catch(() => {});
      // Without a known size, only the host's total (`bytes */N`) says whether the part is the whole file.
      const whole = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
      total = opts.size ?? (whole === undefined ? -1 : Number(whole));
    } else {
      const announced = announcedSize(res, append);
      try {
        checkAnnounced(opts, announced);
      } catch (err) {
        await res.body.cancel().catch(() => {});
        // The host now serves another file: bytes kept from an earlier answer belong to nothing.
        await rm(part, { force: true });
        throw err;
      }
      total = announced ?? total;
      try {
        await writeBody(res.body, part, append ? have : 0, total, opts);
      } catch (err) {
        // The part file stays, holding every byte received: the next pull resumes from it.
        if (opts.signal?.aborted) throw err;
        throw new ModelError('MODEL_DOWNLOAD_FAILED', `download of ${opts.url} broke off: ${(err as Error).message}`, {
          url: opts.url,
        });
      }
    }
  }
  const got = await sizeOf(part);
  opts.onProgress?.({ file: opts.dest, receivedBytes: got, totalBytes: total, phase: 'verify' });
  const digest = got === total ? await sha256OfFile(part) : '';
  if (!digest || (opts.sha256 !== undefined && digest !== opts.sha256)) {
    // A bad part cannot be repaired by resuming it: drop it so the next pull starts clean.
    await rm(part, { force: true });
    throw new ModelError(
      'MODEL_CHECKSUM_MISMATCH',
      `${opts.url} gave ${got} bytes with sha256 ${digest || '(not computed)'}; expected ${total} bytes` +
        (opts.sha256 ? ` with sha256 ${opts.sha256}` : ''),
      { url: opts.url, size: got, sha256: digest },
    );
  }
  await rename(part, opts.dest);
  return { size: got, sha256: digest };
}

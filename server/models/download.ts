import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { GuardedFetch, GuardedResponse } from '../core/net/types.js';
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
  size: number;
  sha256: string;
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
      opts.onProgress?.({ file: opts.dest, receivedBytes: written, totalBytes: opts.size, phase: 'download' });
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

/**
 * Downloads into `<dest>.part`, resuming from its length with a Range request, then checks size and
 * sha256 before renaming it to `dest`: a file at `dest` is always complete and verified.
 */
export async function downloadVerified(opts: DownloadOptions): Promise<void> {
  const part = `${opts.dest}.part`;
  await mkdir(dirname(opts.dest), { recursive: true });
  let have = await sizeOf(part);
  if (have > opts.size) {
    await rm(part, { force: true });
    have = 0;
  }
  // Told before the request, so a resumed download shows where it starts from.
  opts.onProgress?.({ file: opts.dest, receivedBytes: have, totalBytes: opts.size, phase: 'download' });
  if (have < opts.size) {
    const headers: Record<string, string> = have > 0 ? { range: `bytes=${have}-` } : {};
    let res: GuardedResponse;
    try {
      // Hosts redirect to their CDNs (each hop is checked again). The file's size bounds the body, and a
      // large file may take long: no overall limit, but a stalled one still fails (NetPolicy.totalTimeoutMs).
      res = await opts.net(opts.url, { headers, signal: opts.signal, maxBytes: opts.size, totalTimeoutMs: 0 });
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
    if (res.status === 416) await res.body.cancel().catch(() => {});
    else {
      try {
        await writeBody(res.body, part, append ? have : 0, opts);
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
  opts.onProgress?.({ file: opts.dest, receivedBytes: got, totalBytes: opts.size, phase: 'verify' });
  const digest = got === opts.size ? await sha256OfFile(part) : '';
  if (digest !== opts.sha256) {
    // A bad part cannot be repaired by resuming it: drop it so the next pull starts clean.
    await rm(part, { force: true });
    throw new ModelError(
      'MODEL_CHECKSUM_MISMATCH',
      `${opts.url} gave ${got} bytes with sha256 ${digest || '(not computed)'}; expected ${opts.size} bytes with sha256 ${opts.sha256}`,
      { url: opts.url, size: got, sha256: digest },
    );
  }
  await rename(part, opts.dest);
}

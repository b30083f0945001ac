/**
 * Writing one object to S3: one PutObject up to a threshold, a multipart upload above it.
 *
 * The body is read in parts of `partSize` bytes held in memory, so that the SDK can retry a part (a stream
 * cannot be read twice) and a body of unknown length (a stream) needs no length up front: the first bytes
 * up to the threshold decide between the two ways. A multipart upload that fails, for the store's reason or
 * the source's, is aborted, so no parts stay behind.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { objectStoreFailed } from './failure.js';
import type { ObjectSource } from './object-store.js';

/** S3's bound on the parts of one upload. */
const MAX_PARTS = 10_000;

export interface UploadPlan {
  /** Bodies up to this many bytes go in one PutObject. */
  threshold: number;
  /** Bytes per part of a multipart upload (S3 wants at least 5 MiB in every part but the last). */
  partSize: number;
  /** Parts sent at once. */
  concurrency: number;
}

export interface UploadTarget {
  client: S3Client;
  bucket: string;
  /** The key in the bucket (with the store's prefix). */
  s3Key: string;
  /** The store's key, for messages. */
  key: string;
  store: string;
  contentType?: string;
  /** Sends one request, turning its failure into the store's coded error. */
  send<T>(op: string, fn: () => Promise<T>): Promise<T>;
}

/** Chunks of any size as parts of `size` bytes (the last may be shorter). Chunks are copied: a producer may reuse its buffers. */
async function* partsOf(source: AsyncIterable<Uint8Array | string>, size: number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let n = 0;
  for await (const chunk of source) {
    const buf = Buffer.from(chunk);
    held.push(buf);
    n += buf.length;
    if (n < size) continue;
    const all = Buffer.concat(held, n);
    let at = 0;
    for (; n - at >= size; at += size) yield all.subarray(at, at + size);
    held = at < n ? [all.subarray(at)] : [];
    n -= at;
  }
  if (n > 0) yield Buffer.concat(held, n);
}

async function* slicesOf(bytes: Uint8Array, size: number): AsyncGenerator<Buffer> {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < all.length; at += size) yield all.subarray(at, at + size);
}

async function* chain(first: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield* first;
  try {
    for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
  } finally {
    await rest.return?.();
  }
}

async function putWhole(t: UploadTarget, body: Buffer): Promise<number> {
  await t.send('put', () =>
    t.client.send(
      new PutObjectCommand({
        Bucket: t.bucket,
        Key: t.s3Key,
        Body: body,
        ContentLength: body.length,
        ContentType: t.contentType,
      }),
    ),
  );
  return body.length;
}

async function multipart(t: UploadTarget, parts: AsyncIterable<Buffer>, plan: UploadPlan): Promise<number> {
  const { bucket: Bucket, s3Key: Key } = t;
  const created = await t.send('put', () =>
    t.client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: t.contentType })),
  );
  const UploadId = created.UploadId;
  if (!UploadId)
    throw objectStoreFailed({
      store: t.store,
      key: t.key,
      op: 'put',
      reason: 'failed',
      why: 'the server started a multipart upload without an UploadId',
    });
  const done: CompletedPart[] = [];
  const inflight = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  let size = 0;
  try {
    let number = 0;
    for await (const part of parts) {
      if (failure) break;
      const PartNumber = ++number;
      if (PartNumber > MAX_PARTS) {
        throw objectStoreFailed({
          store: t.store,
          key: t.key,
          op: 'put',
          reason: 'failed',
          why: `larger than ${MAX_PARTS} parts of ${plan.partSize} bytes`,
        });
      }
      size += part.length;
      const sent: Promise<void> = t
        .send('put', () =>
          t.client.send(
            new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part, ContentLength: part.length }),
          ),
        )
        .then(
          (r) => void done.push({ PartNumber, ETag: r.ETag }),
          (err: unknown) => void (failure ??= { err }),
        )
        .finally(() => inflight.delete(sent));
      inflight.add(sent);
      while (inflight.size >= plan.concurrency) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    if (failure) throw failure.err;
    done.sort((a, b) => a.PartNumber! - b.PartNumber!);
    await t.send('put', () =>
      t.client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } })),
    );
    return size;
  } catch (err) {
    await Promise.all(inflight);
    // Best effort: if the server cannot be reached to abort, a bucket lifecycle rule for incomplete uploads
    // is what removes the parts.
    await t.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw err;
  }
}

/** Writes the body as the object and answers its size; the source's own errors come through as they were. */
export async function uploadObject(t: UploadTarget, body: ObjectSource, plan: UploadPlan): Promise<number> {
  if (body instanceof Uint8Array) {
    return body.length <= plan.threshold
      ? putWhole(t, Buffer.from(body.buffer, body.byteOffset, body.byteLength))
      : multipart(t, slicesOf(body, plan.partSize), plan);
  }
  const parts = partsOf(body as AsyncIterable<Uint8Array | string>, plan.partSize)[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let size = 0;
  while (size <= plan.threshold) {
    const r = await parts.next();
    if (r.done) return putWhole(t, Buffer.concat(first, size));
    first.push(r.value);
    size += r.value.length;
  }
  return multipart(t, chain(first, parts), plan);
}

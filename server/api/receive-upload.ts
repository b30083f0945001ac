import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { sniffFormat } from '../core/extract/sniff.js';
import { DOCUMENT_FORMATS, type DocumentFormat } from '../core/extract/types.js';

const SNIFF_BYTES = 64 * 1024;

export interface ReceivedUpload {
  tmpPath: string;
  sourceFile: string;
  format: DocumentFormat;
  fileHash: string;
  sizeBytes: number;
  fields: Record<string, string>;
}

/** RFC 2046: 1 to 70 characters of a small set, quoted or not. */
const BOUNDARY =
  /;\s*boundary=(?:"([0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?])"|([0-9A-Za-z'()+_,\-./:=?]{1,70}))\s*(?:;|$)/i;

/**
 * A hook for every route: a multipart body whose Content-Type has no usable boundary is 400 before anyone
 * reads it (the parser would throw a plain error, a 500, wherever it is read).
 */
export async function requireMultipartBoundary(req: FastifyRequest): Promise<void> {
  const type = req.headers['content-type'];
  if (type === undefined || !/^\s*multipart\//i.test(type) || BOUNDARY.test(type)) return;
  throw new AppError(
    'VALIDATION_FAILED',
    'a multipart body needs a boundary of 1 to 70 characters in its Content-Type',
    { content_type: type.slice(0, 200) },
  );
}

/**
 * The multipart parser throws plain errors (no code, no status) for a body it cannot read: no boundary,
 * one over its length, a body that ends mid-part. Those are the client's: 400, not 500. Only for errors of
 * code that reads a multipart body and nothing else (a plain error elsewhere may be a bug).
 */
export const clientFault = (err: unknown): unknown =>
  err instanceof Error &&
  (err as { code?: unknown }).code === undefined &&
  (err as { statusCode?: unknown }).statusCode === undefined
    ? new AppError('VALIDATION_FAILED', `the multipart body cannot be read: ${err.message}`)
    : err;

async function* multipartParts(req: FastifyRequest, maxBytes: number): AsyncGenerator<Multipart> {
  try {
    yield* req.parts({ limits: { fileSize: maxBytes, files: 1 } });
  } catch (err) {
    throw clientFault(err);
  }
}

/**
 * Streams the multipart `file` field to the data dir's tmp folder while hashing it, keeping only its
 * first bytes for sniffing. Over the size limit -> 413; a type the content does not show -> 415. Nothing
 * is parsed here: the document itself is read only by the worker pool.
 */
export async function receiveUpload(req: FastifyRequest, tmpDir: string, maxBytes: number): Promise<ReceivedUpload> {
  if (!req.isMultipart())
    throw new AppError('FILE_REQUIRED', 'send the document as multipart/form-data in a field named "file"');
  const fields: Record<string, string> = {};
  let received: ReceivedUpload | undefined;
  try {
    for await (const part of multipartParts(req, maxBytes)) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      if (part.fieldname !== 'file' || received) {
        part.file.resume();
        continue;
      }
      const tmpPath = join(tmpDir, `upload-${randomUUID()}`);
      const hash = createHash('sha256');
      const head: Buffer[] = [];
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          if (size < SNIFF_BYTES) head.push(chunk.subarray(0, SNIFF_BYTES - size));
          size += chunk.length;
          cb(null, chunk);
        },
      });
      try {
        await pipeline(part.file, tap, createWriteStream(tmpPath));
        if (part.file.truncated)
          throw new AppError('FILE_TOO_LARGE', `the file is larger than the ${maxBytes}-byte limit`, {
            max_bytes: maxBytes,
          });
        if (size === 0) throw new AppError('FILE_REQUIRED', 'the uploaded file is empty');
        const sourceFile = (part.filename || 'document').slice(0, 255);
        const format = sniffFormat(new Uint8Array(Buffer.concat(head)), sourceFile);
        if (!format) {
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'the content is not a PDF, DOCX, XLSX, PPTX, CSV, HTML, Markdown, plain-text or image (PNG, JPEG, TIFF, WebP) document',
            { supported: [...DOCUMENT_FORMATS] },
          );
        }
        received = { tmpPath, sourceFile, format, fileHash: hash.digest('hex'), sizeBytes: size, fields };
      } catch (err) {
        rmSync(tmpPath, { force: true });
        // A part that breaks off mid-way is the body's fault; a file system error (with a code) is ours.
        throw clientFault(err);
      }
    }
  } catch (err) {
    // A part after the file that fails (a second file past the files limit, a body that breaks off) leaves no file behind.
    if (received) rmSync(received.tmpPath, { force: true });
    throw err;
  }
  if (!received) throw new AppError('FILE_REQUIRED', 'no "file" field in the upload');
  return { ...received, fields };
}

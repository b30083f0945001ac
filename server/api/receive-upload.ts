import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { sniffFormat } from '../core/extract/sniff.js';
import type { DocumentFormat } from '../core/extract/types.js';

const SNIFF_BYTES = 64 * 1024;

export interface ReceivedUpload {
  tmpPath: string;
  sourceFile: string;
  format: DocumentFormat;
  fileHash: string;
  sizeBytes: number;
  fields: Record<string, string>;
}

/**
 * Streams the multipart `file` field to the data dir's tmp folder while hashing it, keeping only its
 * first bytes for sniffing. Over the size limit -> 413; a type the content does not show -> 415. Nothing
 * is parsed here: the document itself is read only by the worker pool.
 */
export async function receiveUpload(req: FastifyRequest, tmpDir: string, maxBytes: number): Promise<ReceivedUpload> {
  if (!req.isMultipart()) throw new AppError('FILE_REQUIRED', 'send the document as multipart/form-data in a field named "file"');
  const fields: Record<string, string> = {};
  let received: ReceivedUpload | undefined;
  for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
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
      if (part.file.truncated) throw new AppError('FILE_TOO_LARGE', `the file is larger than the ${maxBytes}-byte limit`, { max_bytes: maxBytes });
      if (size === 0) throw new AppError('FILE_REQUIRED', 'the uploaded file is empty');
      const sourceFile = (part.filename || 'document').slice(0, 255);
      const format = sniffFormat(new Uint8Array(Buffer.concat(head)), sourceFile);
      if (!format) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the content is not a PDF, DOCX, HTML, Markdown, plain-text or image (PNG, JPEG, TIFF, WebP) document', {
          supported: ['pdf', 'docx', 'html', 'markdown', 'text', 'image'],
        });
      }
      received = { tmpPath, sourceFile, format, fileHash: hash.digest('hex'), sizeBytes: size, fields };
    } catch (err) {
      rmSync(tmpPath, { force: true });
      throw err;
    }
  }
  if (!received) throw new AppError('FILE_REQUIRED', 'no "file" field in the upload');
  return { ...received, fields };
}

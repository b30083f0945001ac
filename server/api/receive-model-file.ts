import { randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { clientFault } from './receive-upload.js';

/**
 * Streams the multipart `file` field of a model import to the tmp folder, unread: the model manager
 * checks it by sha256 against the catalog (or, for a GGUF of your own, by loading it). `maxBytes` is the largest file the model has, so nothing
 * bigger than any file it could be is ever written.
 */
export async function receiveModelFile(
  req: FastifyRequest,
  tmpDir: string,
  maxBytes: number,
): Promise<{ path: string; fileName: string; fields: Record<string, string> }> {
  let tmpPath: string | undefined;
  let fileName = '';
  const fields: Record<string, string> = {};
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: 1 } })) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file' || tmpPath) {
        part.file.resume();
        continue;
      }
      tmpPath = join(tmpDir, `model-import-${randomUUID()}`);
      fileName = part.filename;
      await pipeline(part.file, createWriteStream(tmpPath));
      if (part.file.truncated)
        throw new AppError('FILE_TOO_LARGE', `the file is larger than the model's largest file (${maxBytes} bytes)`, {
          max_bytes: maxBytes,
        });
    }
  } catch (err) {
    if (tmpPath) rmSync(tmpPath, { force: true });
    throw clientFault(err);
  }
  if (!tmpPath) throw new AppError('FILE_REQUIRED', 'no "file" field in the upload');
  return { path: tmpPath, fileName, fields };
}

import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { clientFault } from './receive-upload.js';

/** A sentence-transformers folder holds about ten files; room for sharded weights too. */
const MAX_FILES = 64;

export interface ReceivedModelFiles {
  /** The temporary folder holding every file under its path; removed by the caller whatever happens. */
  dir: string;
  /** Paths inside `dir`, as sent. */
  files: string[];
  fields: Record<string, string>;
}

/**
 * A file's name as sent, as a path inside the folder: `/`-separated, no `..`, nothing absolute; undefined
 * for a hidden file (a hub folder's .gitattributes), which no model needs.
 */
function relativePath(name: string): string | undefined {
  const parts = name
    .replaceAll('\\', '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.some((p) => p === '..' || p.length > 200) || parts.length > 8) {
    throw new AppError('VALIDATION_FAILED', `"${name.slice(0, 200)}" cannot name a file of a model's folder`, [
      { field: 'file', filename: name.slice(0, 200) },
    ]);
  }
  return parts.some((p) => p.startsWith('.')) ? undefined : parts.join('/');
}

/**
 * Streams every multipart `file` field of a model import into a temporary folder, each under the name it
 * was sent with, which may be a path inside the folder (`1_Pooling/config.json`): the same files as a folder
 * on disk, for a caller that cannot name a path on the server's machine. Nothing larger than `maxBytes` a
 * file is written; the folder goes with any error.
 */
export async function receiveModelFiles(
  req: FastifyRequest,
  tmpDir: string,
  maxBytes: number,
): Promise<ReceivedModelFiles> {
  const dir = join(tmpDir, `model-import-${randomUUID()}`);
  const files: string[] = [];
  const fields: Record<string, string> = {};
  try {
    await mkdir(dir, { recursive: true });
    // preservePath: the multipart parser would otherwise keep only the last part of a name.
    for await (const part of req.parts({ limits: { fileSize: maxBytes, files: MAX_FILES }, preservePath: true })) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      const rel = part.fieldname === 'file' ? relativePath(part.filename) : undefined;
      if (rel === undefined) {
        part.file.resume();
        continue;
      }
      if (files.includes(rel))
        throw new AppError('VALIDATION_FAILED', `${rel} was sent twice`, [{ field: 'file', filename: rel }]);
      await mkdir(dirname(join(dir, rel)), { recursive: true });
      await pipeline(part.file, createWriteStream(join(dir, rel)));
      if (part.file.truncated)
        throw new AppError('FILE_TOO_LARGE', `${rel} is larger than a model file may be (${maxBytes} bytes)`, {
          max_bytes: maxBytes,
          file: rel,
        });
      files.push(rel);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw clientFault(err);
  }
  if (files.length === 0) {
    await rm(dir, { recursive: true, force: true });
    throw new AppError('FILE_REQUIRED', 'no "file" field in the upload');
  }
  return { dir, files, fields };
}

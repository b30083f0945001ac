/**
 * Objects as files under one folder: the default store, and on a team the folder every node mounts.
 *
 * A write goes to a dot-named temporary file beside its target, is flushed to disk, then renamed over the
 * target: readers (here or on another node of a shared mount) see the old file or the new one, never half of
 * one, and a failed write removes its temporary file. Dot names are never keys, so `list` skips temporary
 * files. Emptied folders stay after `delete` (a concurrent write into the folder would otherwise race its
 * removal); `deletePrefix` removes the whole folder.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, type Stats } from 'node:fs';
import type { Dirent } from 'node:fs';
import {
  copyFile,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isAppError } from '../../core/errors.js';
import { objectNotFound, objectStoreFailed, type ObjectFailureReason } from './failure.js';
import { checkKey, type ObjectInfo, type ObjectSource, type ObjectStore } from './object-store.js';

const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

const codeOf = (err: unknown): string | undefined => (err as { code?: unknown } | null)?.code as string | undefined;

function reasonOf(code: string | undefined): ObjectFailureReason {
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'access_denied';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  return 'failed';
}

/** An error of the caller's source (a stream that broke off), passed on as it came: the store did not fail. */
class SourceFailure {
  constructor(readonly cause: unknown) {}
}

async function* guarded(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
  try {
    for await (const chunk of source) yield chunk;
  } catch (err) {
    throw new SourceFailure(err);
  }
}

/** Flushes a file's data to disk, so that a rename after a crash never names an empty or partial file. */
async function syncFile(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

export function createLocalFolderStore(folder: string): ObjectStore {
  const root = resolve(folder);
  const location = root;
  const pathOf = (key: string, what: 'key' | 'prefix' = 'key'): string => join(root, ...checkKey(key, what).split('/'));

  const failed = (op: string, key: string, err: unknown): unknown => {
    if (isAppError(err)) return err;
    if (err instanceof SourceFailure) return err.cause;
    const code = codeOf(err);
    return objectStoreFailed({
      store: location,
      key,
      op,
      reason: reasonOf(code),
      why: (err as Error)?.message ?? String(err),
    });
  };

  /** Writes through a temporary file beside the target; `write` fills the temporary file. */
  async function writeWhole(
    key: string,
    op: string,
    write: (tmp: string) => Promise<void>,
  ): Promise<{ key: string; size: number }> {
    const dest = pathOf(key);
    const tmp = join(dirname(dest), `.${basename(dest)}.${randomUUID()}.tmp`);
    try {
      await mkdir(dirname(dest), { recursive: true });
      await write(tmp);
      await syncFile(tmp);
      const { size } = await stat(tmp);
      await rename(tmp, dest);
      return { key, size };
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw failed(op, key, err);
    }
  }

  async function fileStat(key: string): Promise<Stats | undefined> {
    const path = pathOf(key);
    try {
      const s = await stat(path);
      return s.isFile() ? s : undefined;
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return undefined;
      throw failed('read', key, err);
    }
  }

  async function walk(dir: string, prefix: string, out: ObjectInfo[]): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (MISSING.has(codeOf(err) ?? '')) return;
      throw failed('list', prefix, err);
    }
    for (const e of entries) {
      if (!KEY_SEGMENT.test(e.name)) continue;
      const key = `${prefix}/${e.name}`;
      if (e.isDirectory()) await walk(join(dir, e.name), key, out);
      else if (e.isFile()) {
        const s = await fileStat(key);
        if (s) out.push({ key, size: s.size, modified: s.mtime });
      }
    }
  }

  const store: ObjectStore = {
    location,

    put(key, body: ObjectSource) {
      return writeWhole(key, 'put', async (tmp) => {
        if (body instanceof Uint8Array) await writeFile(tmp, body, { flag: 'wx' });
        else await pipeline(guarded(body as AsyncIterable<Uint8Array>), createWriteStream(tmp, { flags: 'wx' }));
      });
    },

    async putFile(key, path, opts = {}) {
      if (opts.move) {
        const dest = pathOf(key);
        try {
          await mkdir(dirname(dest), { recursive: true });
          await syncFile(path);
          const { size } = await stat(path);
          await rename(path, dest);
          return { key, size };
        } catch (err) {
          // Another file system (a mounted folder): copy, then remove the original once the copy is in place.
          if (codeOf(err) !== 'EXDEV') throw failed('put', key, err);
        }
      }
      const written = await writeWhole(key, 'put', (tmp) => copyFile(path, tmp));
      if (opts.move) await unlink(path).catch(() => undefined);
      return written;
    },

    async get(key) {
      const path = pathOf(key);
      try {
        return await readFile(path);
      } catch (err) {
        if (MISSING.has(codeOf(err) ?? '')) throw objectNotFound(location, key);
        throw failed('get', key, err);
      }
    },

    async getStream(key): Promise<Readable> {
      const path = pathOf(key);
      let fh: FileHandle | undefined;
      try {
        fh = await open(path, 'r');
        if (!(await fh.stat()).isFile()) throw Object.assign(new Error(`${path} is a folder`), { code: 'EISDIR' });
      } catch (err) {
        await fh?.close();
        if (MISSING.has(codeOf(err) ?? '')) throw objectNotFound(location, key);
        throw failed('get', key, err);
      }
      return fh.createReadStream();
    },

    async download(key, dest) {
      const path = pathOf(key);
      if (!(await fileStat(key))) throw objectNotFound(location, key);
      const target = resolve(dest);
      const tmp = join(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);
      try {
        await mkdir(dirname(target), { recursive: true });
        await copyFile(path, tmp);
        const { size } = await stat(tmp);
        await rename(tmp, target);
        return { size };
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        if (MISSING.has(codeOf(err) ?? '') && !(await fileStat(key))) throw objectNotFound(location, key);
        throw failed('download', key, err);
      }
    },

    localPath: (key) => pathOf(key),

    async head(key) {
      const s = await fileStat(key);
      return s ? { key, size: s.size, modified: s.mtime } : undefined;
    },

    async exists(key) {
      return (await fileStat(key)) !== undefined;
    },

    async delete(key) {
      const path = pathOf(key);
      try {
        await unlink(path);
      } catch (err) {
        // A folder of that name is not an object: there is nothing to delete.
        if (
          MISSING.has(codeOf(err) ?? '') ||
          (await stat(path).then(
            (s) => s.isDirectory(),
            () => false,
          ))
        )
          return;
        throw failed('delete', key, err);
      }
    },

    async deletePrefix(prefix) {
      const listed = await store.list(prefix);
      const dir = pathOf(prefix, 'prefix');
      try {
        // An object named like the prefix is not under it (as on S3): only a folder goes.
        if (
          await stat(dir).then(
            (s) => s.isDirectory(),
            () => false,
          )
        )
          await rm(dir, { recursive: true, force: true });
      } catch (err) {
        throw failed('delete', `${checkKey(prefix, 'prefix')}/`, err);
      }
      return listed.length;
    },

    async list(prefix) {
      const folder = checkKey(prefix, 'prefix');
      const out: ObjectInfo[] = [];
      await walk(pathOf(folder, 'prefix'), folder, out);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    close() {},
  };
  return store;
}

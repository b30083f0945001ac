/**
 * A job's files as objects of the object store (server/store/objects): the uploaded original, its rendered
 * page images, and the exports made of it while they are downloaded.
 *
 *   files/<job id>/original.<ext>                  the upload, as received
 *   files/<job id>/page-images/page-<n>-w<px>.png  a page drawn for the review desk, kept until the job goes
 *   exports/<job id>/<random>.zip                  an export, from when it is made until its download ends
 *
 * On the desktop (no object_store_url) the store is the data folder itself, so each key is the path the
 * files always had (`<data_dir>/files/<job id>/original.pdf`) and a folder written by an earlier version
 * reads as it is. With object_store_url the same keys are objects in the bucket, under its prefix.
 *
 * The worker pool reads documents by path: `useOriginal` gives the object's own file in a folder, or a
 * copy downloaded into <data_dir>/tmp/ (copy-<random>.<ext>) that is removed once no one uses it (after `lingerMs`, so
 * that the review desk drawing one page after another does not download the document for each).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalFolderStore } from './objects/local-folder.js';
import type { ObjectStore } from './objects/object-store.js';

/** Copies left in tmp/ (copy-…) by a process that died are removed by the next start after this long. */
const STALE_COPY_MS = 24 * 60 * 60 * 1000;

interface LocalCopy {
  /** The copy's path once downloaded, with its size and when the download began. */
  made: Promise<{ path: string; size: number; at: number }>;
  users: number;
  timer?: NodeJS.Timeout;
}

/** A copy's file name in tmp/: `copy-<random>.<ext>`. */
const COPY_NAME = /^copy-[\w-]+(\.\w+)?$/;

export interface FileStoreOptions {
  /** Where the objects are; the data folder by default (the desktop's layout). */
  objects?: ObjectStore;
}

export function createFileStore(dataDir: string, opts: FileStoreOptions = {}) {
  const objects = opts.objects ?? createLocalFolderStore(dataDir);
  const tmpDir = join(dataDir, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  // The desktop's folder has always had these two, empty or not (a store that is a folder has local paths).
  if (objects.localPath('files'))
    for (const d of ['files', 'exports']) mkdirSync(join(dataDir, d), { recursive: true });
  else sweepStaleCopies(tmpDir);

  const copies = new Map<string, LocalCopy>();
  let closed = false;

  const originalKey = (jobId: string, sourceFile: string): string =>
    `files/${jobId}/original${safeExtension(sourceFile)}`;

  function drop(key: string, copy: LocalCopy): Promise<void> {
    clearTimeout(copy.timer);
    if (copies.get(key) === copy) copies.delete(key);
    return copy.made
      .then(
        (m) => rm(m.path, { force: true }),
        () => undefined,
      )
      .catch(() => undefined);
  }

  /**
   * A copy no one reads, kept since its last use, is checked against the object first (one HEAD): an
   * original removed or written again since is not read from a stale copy.
   */
  async function stillCurrent(key: string, copy: LocalCopy): Promise<boolean> {
    const m = await copy.made.catch(() => undefined);
    if (!m) return false;
    // A store that cannot answer: given up, and the download that follows says why.
    const now = await objects.head(key).catch(() => undefined);
    return now !== undefined && now.size === m.size && now.modified.getTime() < m.at;
  }

  async function copyOf(key: string, extension: string): Promise<LocalCopy> {
    const kept = copies.get(key);
    if (kept) {
      clearTimeout(kept.timer);
      const lingering = kept.timer !== undefined && kept.users === 0;
      kept.timer = undefined;
      if (!lingering) return kept;
      kept.users++;
      const current = await stillCurrent(key, kept).finally(() => kept.users--);
      if (current) return kept;
      // Given up: removed now if no one reads it, else by its last reader.
      if (kept.users === 0) void drop(key, kept);
      else if (copies.get(key) === kept) copies.delete(key);
      return copyOf(key, extension);
    }
    const path = join(tmpDir, `copy-${randomUUID()}${extension}`);
    // A second back, for the object store's clock: a copy is stale only for an object written after it began.
    const at = Date.now() - 1000;
    const copy: LocalCopy = { made: objects.download(key, path).then(({ size }) => ({ path, size, at })), users: 0 };
    // A copy that could not be made is not kept: the next reader tries again.
    copy.made.catch(() => {
      if (copies.get(key) === copy) copies.delete(key);
    });
    copies.set(key, copy);
    return copy;
  }

  return {
    /** The data folder's tmp/: uploads are received here before they become objects. */
    tmpDir,
    objects,
    originalKey,
    pageImageKey: (jobId: string, page: number, width: number): string =>
      `files/${jobId}/page-images/page-${page}-w${width}.png`,
    /** A new export's key: each export is an object of its own, removed once it has been sent. */
    exportKey: (jobId: string): string => `exports/${jobId}/${randomUUID()}.zip`,

    /** Makes the received upload the job's original (moved, not copied, into a folder); the tmp file is gone either way. */
    async putOriginal(jobId: string, sourceFile: string, tmpPath: string): Promise<void> {
      try {
        await objects.putFile(originalKey(jobId, sourceFile), tmpPath, { move: true });
      } finally {
        rmSync(tmpPath, { force: true });
      }
    },

    /**
     * Runs `use` with a local path of the job's original: the object's own file in a folder (read it, never
     * write it), else a copy in tmp/, removed when no one uses it any more (after `lingerMs`).
     * OBJECT_NOT_FOUND or OBJECT_STORE_FAILED when the original cannot be had.
     */
    async useOriginal<T>(
      jobId: string,
      sourceFile: string,
      use: (path: string) => Promise<T>,
      lingerMs = 0,
    ): Promise<T> {
      const key = originalKey(jobId, sourceFile);
      const local = objects.localPath(key);
      if (local) return use(local);
      const copy = await copyOf(key, safeExtension(sourceFile));
      copy.users++;
      try {
        return await use((await copy.made).path);
      } finally {
        copy.users--;
        // Its last reader removes a copy that was given up meanwhile (stale, or its job deleted), or keeps it a while.
        if (copy.users === 0) {
          if (copies.get(key) === copy && lingerMs > 0 && !closed)
            copy.timer = setTimeout(() => void drop(key, copy), lingerMs).unref();
          else await drop(key, copy);
        }
      }
    },

    discardTmp(path: string): void {
      rmSync(path, { force: true });
    },

    /** Removes every object of the job (its original, page images and exports). */
    async removeJob(jobId: string): Promise<void> {
      for (const [key, copy] of copies) {
        if (!key.startsWith(`files/${jobId}/`)) continue;
        if (copy.users === 0) void drop(key, copy);
        else copies.delete(key);
      }
      await objects.deletePrefix(`files/${jobId}`);
      await objects.deletePrefix(`exports/${jobId}`);
    },

    /** Removes the local copies no one reads and lets go of the store's connections. */
    async close(): Promise<void> {
      closed = true;
      await Promise.all([...copies].filter(([, copy]) => copy.users === 0).map(([key, copy]) => drop(key, copy)));
      objects.close();
    },
  };
}
export type FileStore = ReturnType<typeof createFileStore>;

/** Only a short alphanumeric extension of the client's file name reaches the file system. */
function safeExtension(name: string): string {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(name);
  return m ? `.${m[1]!.toLowerCase()}` : '';
}

/** Copies of a process that ended without removing them (a crash): only old ones, as another process may share the folder. */
function sweepStaleCopies(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => COPY_NAME.test(n));
  } catch {
    return;
  }
  const before = Date.now() - STALE_COPY_MS;
  for (const name of names) {
    try {
      if (statSync(join(dir, name)).mtimeMs < before) rmSync(join(dir, name), { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: left alone.
    }
  }
}

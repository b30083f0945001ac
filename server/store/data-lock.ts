import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process owns a data folder at a time: `lectern serve`, the desktop app, or a `lectern` command that
 * opened the folder itself. The owner holds `<data_dir>/lectern.lock`; once it listens it writes its
 * address there, and where its API key can be read, so commands talk to it instead of opening the folder.
 */
export const LOCK_FILE = 'lectern.lock';

export type LockOwnerKind = 'server' | 'desktop' | 'cli';

export interface DataLockInfo {
  pid: number;
  owner: LockOwnerKind;
  /** A command that opened the folder itself (`add-doc`, `chat`…). */
  command?: string;
  /** Where the owner listens, once it does (loopback form of a wildcard host). */
  url?: string;
  /** The file holding the owner's API key; absent when the key came from SERVICE_API_KEY or is per session. */
  key_file?: string;
  key_source?: 'file' | 'env' | 'session';
  started_at: string;
  /** Tells this holder's file from a later one's, so a release never removes someone else's lock. */
  token: string;
}

export interface DataLock {
  readonly path: string;
  readonly info: DataLockInfo;
  /** Adds the address (and where its key is) once the owner listens. */
  publish(extra: Pick<DataLockInfo, 'url' | 'key_file' | 'key_source'>): void;
  release(): void;
}

/** Thrown when another live process holds the folder; `details` is its lock. */
export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly lockPath: string,
    readonly details: DataLockInfo,
  ) {
    super(`the data folder is in use by ${describeOwner(details)} (${lockPath})`);
  }
}

export function describeOwner(l: Pick<DataLockInfo, 'owner' | 'pid' | 'command'>): string {
  const who =
    l.owner === 'server'
      ? '`lectern serve`'
      : l.owner === 'desktop'
        ? 'the Lectern desktop app'
        : l.command
          ? `\`lectern ${l.command}\``
          : 'a `lectern` command';
  return `${who} (pid ${l.pid})`;
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

function parse(text: string): DataLockInfo | null {
  try {
    const v = JSON.parse(text) as Partial<DataLockInfo>;
    return typeof v.pid === 'number' && typeof v.token === 'string' ? (v as DataLockInfo) : null;
  } catch {
    return null;
  }
}

function readAt(path: string): DataLockInfo | null | 'missing' {
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return 'missing';
    throw err;
  }
}

/** The folder's lock as it is now, with whether its holder still runs; null when nobody holds it. */
export function readDataLock(dataDir: string): (DataLockInfo & { alive: boolean }) | null {
  const got = readAt(join(dataDir, LOCK_FILE));
  if (got === 'missing' || got === null) return null;
  return { ...got, alive: pidAlive(got.pid) };
}

/** Writes the whole file under another name first: a reader never sees half a lock. */
function writeTemp(path: string, info: DataLockInfo): string {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return tmp;
}

/**
 * Takes the folder's lock atomically (a hard link fails if the name exists), taking over a lock whose
 * holder is gone (a crash or kill -9). Throws DataDirLockedError while a live process holds it.
 */
export function acquireDataLock(dataDir: string, owner: { kind: LockOwnerKind; command?: string }): DataLock {
  const path = join(dataDir, LOCK_FILE);
  let info: DataLockInfo = {
    pid: process.pid,
    owner: owner.kind,
    ...(owner.command ? { command: owner.command } : {}),
    started_at: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  for (let attempt = 0; ; attempt++) {
    const tmp = writeTemp(path, info);
    try {
      linkSync(tmp, path);
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST' || attempt >= 5) throw err;
    } finally {
      unlinkSync(tmp);
    }
    const held = readAt(path);
    if (held === 'missing') continue;
    if (held && pidAlive(held.pid) && held.pid !== process.pid) throw new DataDirLockedError(path, held);
    // Stale (or unreadable): move it aside, then make sure what was moved is what was judged stale; a
    // live lock taken meanwhile by someone else goes back where it was.
    const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') continue;
      throw err;
    }
    const moved = readAt(aside);
    if (moved && moved !== 'missing' && held && moved.token !== held.token && pidAlive(moved.pid)) {
      try {
        linkSync(aside, path);
      } catch {
        // someone holds it again already
      }
      unlinkSync(aside);
      throw new DataDirLockedError(path, moved);
    }
    unlinkSync(aside);
  }

  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    const now = readAt(path);
    if (now && now !== 'missing' && now.token === info.token) unlinkSync(path);
  };
  // A process that exits without closing the app (process.exit, an uncaught error) still lets go.
  process.on('exit', release);
  return {
    path,
    get info() {
      return info;
    },
    publish(extra) {
      if (released) return;
      info = { ...info, ...extra };
      renameSync(writeTemp(path, info), path);
    },
    release,
  };
}

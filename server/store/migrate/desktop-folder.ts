/**
 * A desktop data folder opened for a copy: checked to be one (or made, as a target), locked for as long as
 * the copy runs (a running desktop app or `lectern serve` holds it: refused), its SQLite checked to be no
 * newer than this Lectern and then migrated by the normal start-up path.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { acquireDataLock, type DataLock } from '../data-lock.js';
import { openDatabase, type OpenedDatabase } from '../db.js';
import { createLocalFolderStore } from '../objects/local-folder.js';
import type { ObjectStore } from '../objects/object-store.js';
import { SchemaTooNewError } from '../schema-version.js';
import { createSqliteStore } from '../sqlite/sqlite-store.js';
import type { Store } from '../store.js';

export const DATABASE_FILE = 'lectern.db';

export class MigrateRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export interface DesktopFolder {
  dir: string;
  database: OpenedDatabase;
  store: Store;
  objects: ObjectStore;
  close(): void;
}

function checkFolder(dir: string, role: 'source' | 'target'): void {
  const hasDb = existsSync(join(dir, DATABASE_FILE));
  if (role === 'source') {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new MigrateRefusal('NOT_A_DATA_DIR', `${dir} does not exist or is not a folder`);
    if (!hasDb)
      throw new MigrateRefusal(
        'NOT_A_DATA_DIR',
        `${dir} is not a Lectern data folder (it has no ${DATABASE_FILE})`,
        'give the folder the desktop app or `lectern serve` used as its data_dir',
      );
    return;
  }
  mkdirSync(dir, { recursive: true });
  // Writing a library into some other folder's files would mix the two: only an empty folder or a Lectern one.
  if (!hasDb && readdirSync(dir).length > 0)
    throw new MigrateRefusal(
      'NOT_A_DATA_DIR',
      `${dir} is neither empty nor a Lectern data folder (it has no ${DATABASE_FILE})`,
      'give a new or empty folder, or an existing data folder',
    );
}

/** The folder's database, opened (and migrated) as the server opens it; one a newer version migrated is refused. */
function openFolderDatabase(dir: string, migrations: string): OpenedDatabase {
  try {
    return openDatabase(join(dir, DATABASE_FILE), migrations);
  } catch (err) {
    if (!(err instanceof SchemaTooNewError)) throw err;
    throw new MigrateRefusal(
      'SCHEMA_TOO_NEW',
      `${dir} was last opened by a newer version of Lectern than this one`,
      'run `lectern migrate` of that version (a data folder is never migrated backwards)',
    );
  }
}

/** Opens the folder under its lock; `close` lets go of both. Throws MigrateRefusal or DATA_DIR_LOCKED in one line. */
export function openDesktopFolder(dir: string, role: 'source' | 'target', migrations: string): DesktopFolder {
  checkFolder(dir, role);
  const lock: DataLock = acquireDataLock(dir, { kind: 'cli', command: 'migrate' });
  try {
    const database = openFolderDatabase(dir, migrations);
    const store = createSqliteStore(database, { indexesDir: join(dir, 'indexes') });
    return {
      dir,
      database,
      store,
      objects: createLocalFolderStore(dir),
      close() {
        database.close();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

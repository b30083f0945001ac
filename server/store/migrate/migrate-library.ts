/**
 * `lectern migrate`: a library copied between a desktop data folder (SQLite, USearch files, files/) and a
 * team server (PostgreSQL with pgvector, and the folder its nodes share for files),
 * either way, ids unchanged. Rows go table by table in dependency order, then the vectors, then the files.
 * Whatever the target holds already (by primary key, by vector key, by file key and size) is left alone and
 * counted as skipped, so a run that was cut short, or that is repeated, finishes the copy.
 *
 * Lifetimes: the desktop folder's lock is held from the start of the copy to its end (a desktop app or a
 * server holding it refuses the copy); the team database is reached through a pool of two connections, one
 * transaction per batch; nothing is held across batches, so a killed run leaves whole batches behind.
 */
import { join } from 'node:path';
import type { Settings } from '../../schemas/settings.js';
import { openCheckedObjectStore } from '../objects/open.js';
import { openPostgres } from '../postgres/connection.js';
import { createPostgresStore } from '../postgres/postgres-store.js';
import { copyChatKey, copyFiles, type FilesReport } from './copy-files.js';
import { copyTable, type TableReport } from './copy-tables.js';
import { copyVectors, type VectorReport } from './copy-vectors.js';
import { MigrateRefusal, openDesktopFolder } from './desktop-folder.js';
import { pgSide } from './pg-side.js';
import { sqliteSide } from './sqlite-side.js';
import { MIRRORED_TABLES } from './tables.js';

export { MigrateRefusal };

export type Direction = 'to-team' | 'to-desktop';

export interface MigrateOptions {
  direction: Direction;
  /** The desktop data folder: the source (to-team) or the target (to-desktop). */
  desktopDir: string;
  /** This node's settings: database_url, and where the team keeps files: object_store_url, else data_dir. */
  settings: Pick<Settings, 'database_url' | 'data_dir' | 'chat_key_file'> &
    Partial<Pick<Settings, 'object_store_url' | 'database_timeout_ms'>>;
  appRoot: string;
  /** Called as each part is done, for progress lines. */
  onTable?(r: TableReport): void;
}

export interface MigrateReport {
  direction: Direction;
  tables: TableReport[];
  vectors: VectorReport[];
  files: FilesReport;
  chat_key: 'copied' | 'same' | 'differs' | 'none';
  /** Every table's source and target checksums are equal. */
  agree: boolean;
}

export async function migrateLibrary(o: MigrateOptions): Promise<MigrateReport> {
  if (!o.settings.database_url) {
    throw new MigrateRefusal(
      'INVALID_SETTINGS',
      'no team database is set',
      'give --database-url postgres://…, or set LECTERN_DATABASE_URL or database_url in lectern.yaml',
    );
  }
  const desktop = openDesktopFolder(
    o.desktopDir,
    o.direction === 'to-team' ? 'source' : 'target',
    join(o.appRoot, 'drizzle'),
  );
  try {
    const teamObjects = await openCheckedObjectStore({
      object_store_url: o.settings.object_store_url ?? '',
      data_dir: o.settings.data_dir,
    });
    let pg: Awaited<ReturnType<typeof openPostgres>>;
    try {
      // Batches may rightly take longer than a request's statement: only connecting is bounded.
      pg = await openPostgres(o.settings.database_url, join(o.appRoot, 'drizzle', 'pg'), {
        max: 2,
        timeoutMs: o.settings.database_timeout_ms,
        longStatements: true,
      });
    } catch (err) {
      teamObjects.close();
      throw err;
    }
    try {
      const team = { side: pgSide(pg.db), store: createPostgresStore(pg), objects: teamObjects };
      const home = { side: sqliteSide(desktop.database.db), store: desktop.store, objects: desktop.objects };
      const [from, to] = o.direction === 'to-team' ? [home, team] : [team, home];
      const tables: TableReport[] = [];
      for (const t of MIRRORED_TABLES) {
        const r = await copyTable(t, from.side, to.side);
        tables.push(r);
        o.onTable?.(r);
      }
      const vectors = await copyVectors(from, to);
      const files = await copyFiles(from.side, from.objects, to.objects);
      const teamKey = o.settings.chat_key_file || join(o.settings.data_dir, 'chat.key');
      const desktopKey = join(o.desktopDir, 'chat.key');
      const chat_key = o.direction === 'to-team' ? copyChatKey(desktopKey, teamKey) : copyChatKey(teamKey, desktopKey);
      return {
        direction: o.direction,
        tables,
        vectors,
        files,
        chat_key,
        agree: tables.every((t) => t.source.checksum === t.target.checksum),
      };
    } finally {
      teamObjects.close();
      await pg.close();
    }
  } finally {
    desktop.close();
  }
}

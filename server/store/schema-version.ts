import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';

/** The newest migration this version knows: drizzle-kit's journal `when`, which the migrator records as created_at. */
export function newestKnownMigration(migrationsFolder: string): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  return Math.max(...journal.entries.map((e) => e.when));
}

/** The newest migration applied to a SQLite database, 0 for a new one. */
export function newestAppliedMigration(sqlite: Database.Database): number {
  const table = sqlite
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`)
    .get();
  if (!table) return 0;
  const row = sqlite.prepare('SELECT max(created_at) AS newest FROM __drizzle_migrations').get() as {
    newest: number | null;
  };
  return Number(row.newest ?? 0);
}

/** A library a newer Lectern has migrated: this version would not know its tables (nor their triggers' functions). */
export class SchemaTooNewError extends Error {
  readonly code = 'SCHEMA_TOO_NEW';
  readonly hint = 'start the newer version of Lectern that last opened it; a library is never migrated backwards';
  constructor(file: string) {
    super(`${file} was written by a newer version of Lectern than this one`);
  }
}

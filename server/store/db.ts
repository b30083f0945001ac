import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from '../../drizzle/schema.js';
import { chunkFullText } from './full-text-stems.js';
import { newestAppliedMigration, newestKnownMigration, SchemaTooNewError } from './schema-version.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface OpenedDatabase {
  db: Db;
  sqlite: Database.Database;
  close(): void;
}

/**
 * The SQL function the full-text triggers index a chunk's text through: `(text)` its words
 * (drizzle/0018_full_text_words.sql), `(text, language)` its words with their stems in its language
 * (drizzle/0020_chunk_language.sql). Both forms stay, as a database may be migrated through both.
 */
export const FULL_TEXT_WORDS_FUNCTION = 'lectern_full_text_words';

/**
 * Opens (or creates) the database in WAL mode and applies drizzle-kit's migrations; refuses one a newer version
 * migrated (SchemaTooNewError), which it would misread. The full-text triggers call a function of this process
 * (`chunkFullText`), so every connection that writes must be opened here.
 */
export function openDatabase(file: string, migrationsFolder: string): OpenedDatabase {
  const sqlite = new Database(file);
  if (newestAppliedMigration(sqlite) > newestKnownMigration(migrationsFolder)) {
    sqlite.close();
    throw new SchemaTooNewError(file);
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.function(
    FULL_TEXT_WORDS_FUNCTION,
    { deterministic: true, varargs: true },
    (text: unknown, language: unknown) =>
      typeof text === 'string' ? chunkFullText(text, typeof language === 'string' ? language : null) : '',
  );
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { db, sqlite, close: () => sqlite.close() };
}

/** A transaction handle; functions that must run inside the caller's transaction take `DbLike`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbLike = Db | Tx;

import { dirname, join } from 'node:path';
import type { OpenedDatabase } from '../db.js';
import type { Repositories, Store } from '../store.js';
import { createCollectionIndexes } from '../usearch/collection-indexes.js';
import { sqliteCollections } from './collections.js';
import { sqliteConversations } from './conversations.js';
import { sqliteFullText } from './full-text.js';
import { sqliteBots } from './bots.js';
import { sqliteBlocks } from './blocks.js';
import { sqliteChunks } from './chunks.js';
import { sqliteJobs } from './jobs.js';
import { sqliteKeys } from './keys.js';
import { sqliteLookups } from './lookups.js';
import { sqlitePages } from './pages.js';
import { sqliteRevisions } from './revisions.js';
import { createTxGate } from './tx-gate.js';
import { usearchVectors } from './vectors.js';

export interface SqliteStoreOptions {
  /** Where the collections' USearch files live; by default `indexes/` beside the database file. */
  indexesDir?: string;
}

/**
 * The desktop's store: SQLite through drizzle and better-sqlite3, on the connection `openDatabase` made
 * (its migrations applied). One connection, one writer; see tx-gate.ts for how transactions await.
 * Vectors live in one USearch file per collection, full text in FTS5.
 */
export function createSqliteStore({ db, sqlite }: OpenedDatabase, options: SqliteStoreOptions = {}): Store {
  const gate = createTxGate(sqlite);
  const indexes = createCollectionIndexes(options.indexesDir ?? join(dirname(sqlite.name), 'indexes'));
  const search = { vectors: usearchVectors(db, gate, indexes), fullText: sqliteFullText(db, gate) };
  const repos: Repositories = {
    collections: sqliteCollections(db, gate),
    conversations: sqliteConversations(db, gate),
    keys: sqliteKeys(db, gate),
    bots: sqliteBots(db, gate),
    lookups: sqliteLookups(db, gate),
    jobs: sqliteJobs(db, gate),
    blocks: sqliteBlocks(db, gate),
    chunks: sqliteChunks(db, gate),
    pages: sqlitePages(db, gate),
    revisions: sqliteRevisions(db, gate),
  };
  return { kind: 'sqlite', ...repos, search, transaction: (fn) => gate.transaction(() => fn(repos)) };
}

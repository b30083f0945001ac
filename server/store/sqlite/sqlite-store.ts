import type { OpenedDatabase } from '../db.js';
import type { Repositories, Store } from '../store.js';
import { sqliteConversations } from './conversations.js';
import { sqliteBots } from './bots.js';
import { sqliteBlocks } from './blocks.js';
import { sqliteChunks } from './chunks.js';
import { sqliteJobs } from './jobs.js';
import { sqliteKeys } from './keys.js';
import { sqliteLookups } from './lookups.js';
import { sqlitePages } from './pages.js';
import { sqliteRevisions } from './revisions.js';
import { createTxGate } from './tx-gate.js';

/**
 * The desktop's store: SQLite through drizzle and better-sqlite3, on the connection `openDatabase` made
 * (its migrations applied). One connection, one writer; see tx-gate.ts for how transactions await.
 */
export function createSqliteStore({ db, sqlite }: OpenedDatabase): Store {
  const gate = createTxGate(sqlite);
  const repos: Repositories = {
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
  return { kind: 'sqlite', ...repos, transaction: (fn) => gate.transaction(() => fn(repos)) };
}

import type { Repositories, Store } from '../store.js';
import { pgBots } from './bots.js';
import type { OpenedPostgres } from './connection.js';
import { createPgContext } from './context.js';
import { pgConversations } from './conversations.js';
import { pgBlocks, pgChunks, pgJobs, pgPages } from './jobs.js';
import { pgKeys } from './keys.js';
import { pgLookups } from './lookups.js';
import { pgRevisions } from './revisions.js';

/** The team server's store: PostgreSQL (with pgvector) through drizzle and node-postgres, shared by every node. */
export function createPostgresStore({ db }: Pick<OpenedPostgres, 'db'>): Store {
  const ctx = createPgContext(db);
  const repos: Repositories = {
    conversations: pgConversations(ctx),
    keys: pgKeys(ctx),
    bots: pgBots(ctx),
    lookups: pgLookups(ctx),
    jobs: pgJobs(ctx),
    blocks: pgBlocks(ctx),
    chunks: pgChunks(ctx),
    pages: pgPages(ctx),
    revisions: pgRevisions(ctx),
  };
  return { kind: 'postgres', ...repos, transaction: (fn) => ctx.transaction(() => fn(repos)) };
}

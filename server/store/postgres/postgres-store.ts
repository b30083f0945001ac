import type { Repositories, Store } from '../store.js';
import { pgBots } from './bots.js';
import { pgCollections } from './collections.js';
import type { OpenedPostgres } from './connection.js';
import { createPgContext, type PgContext } from './context.js';
import { pgConversations } from './conversations.js';
import { pgFullText } from './full-text.js';
import { pgBlocks, pgChunks, pgJobs, pgPages } from './jobs.js';
import { pgKeys } from './keys.js';
import { pgLookups } from './lookups.js';
import { pgRevisions } from './revisions.js';
import { pgVectors } from './vectors.js';

/**
 * The team server's store: PostgreSQL (with pgvector) through drizzle and node-postgres, shared by every node.
 * Vectors in a pgvector table per collection (HNSW), full text in a tsvector table per collection (GIN).
 * `ctx`: the transactions it runs in, when others share them (the task queue, so that a task is enqueued
 * in the same transaction as the change of the job it is for).
 */
export function createPostgresStore({ db }: Pick<OpenedPostgres, 'db'>, ctx: PgContext = createPgContext(db)): Store {
  const search = { vectors: pgVectors(ctx), fullText: pgFullText(ctx) };
  const repos: Repositories = {
    collections: pgCollections(ctx),
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
  return { kind: 'postgres', ...repos, search, transaction: (fn) => ctx.transaction(() => fn(repos)) };
}

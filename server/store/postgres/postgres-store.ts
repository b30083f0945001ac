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
import { asUnavailable, guardUnavailable } from './unavailable.js';
import { pgVectors } from './vectors.js';

/**
 * The team server's store: PostgreSQL (with pgvector) through drizzle and node-postgres, shared by every node.
 * Vectors in a pgvector table per collection (HNSW), full text in a tsvector table per collection (GIN).
 * `ctx`: the transactions it runs in, when others share them (the task queue, so that a task is enqueued
 * in the same transaction as the change of the job it is for).
 */
export function createPostgresStore({ db }: Pick<OpenedPostgres, 'db'>, ctx: PgContext = createPgContext(db)): Store {
  // Every door guarded: a lost connection is DATABASE_UNAVAILABLE (503) wherever it is met (unavailable.ts).
  const g = guardUnavailable;
  const search = { vectors: g(pgVectors(ctx)), fullText: g(pgFullText(ctx)) };
  const repos: Repositories = {
    collections: g(pgCollections(ctx)),
    conversations: g(pgConversations(ctx)),
    keys: g(pgKeys(ctx)),
    bots: g(pgBots(ctx)),
    lookups: g(pgLookups(ctx)),
    jobs: g(pgJobs(ctx)),
    blocks: g(pgBlocks(ctx)),
    chunks: g(pgChunks(ctx)),
    pages: g(pgPages(ctx)),
    revisions: g(pgRevisions(ctx)),
  };
  // BEGIN, COMMIT and the pool's connect happen outside the repositories: guarded here.
  const transaction = <T>(fn: (tx: Repositories) => Promise<T>): Promise<T> =>
    ctx.transaction(() => fn(repos)).catch((err: unknown) => Promise.reject(asUnavailable(err)));
  return { kind: 'postgres', ...repos, search, transaction };
}

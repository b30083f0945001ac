/**
 * Transactions for the PostgreSQL store. A transaction is drizzle's (BEGIN … COMMIT on one pooled
 * connection); the repositories find it through AsyncLocalStorage, so every call made in the transaction's
 * async context, on `tx` or on the outer store, runs on that connection and is part of it. Nested
 * transactions join the outer one, as in the SQLite store.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PgDb } from './connection.js';

/** What repositories run queries on: the pool, or the open transaction. */
export type PgConn = Pick<PgDb, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export interface PgContext {
  conn(): PgConn;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

export function createPgContext(db: PgDb): PgContext {
  const current = new AsyncLocalStorage<PgConn>();
  return {
    conn: () => current.getStore() ?? db,
    transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (current.getStore()) return fn();
      return db.transaction((tx) => current.run(tx, fn));
    },
  };
}

/** PostgreSQL's code for a unique violation. */
export const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505';

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
  /**
   * Runs independent queries: at once on the pool's connections, one after another in a transaction, whose
   * one connection answers one query at a time (node-postgres would queue them, a use it is dropping).
   */
  all<T extends readonly unknown[]>(queries: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T>;
}

export function createPgContext(db: PgDb): PgContext {
  const current = new AsyncLocalStorage<PgConn>();
  return {
    conn: () => current.getStore() ?? db,
    transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (current.getStore()) return fn();
      return db.transaction((tx) => current.run(tx, fn));
    },
    async all<T extends readonly unknown[]>(queries: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T> {
      const run = queries as readonly (() => PromiseLike<unknown>)[];
      if (!current.getStore()) return (await Promise.all(run.map((q) => q()))) as unknown as T;
      const out: unknown[] = [];
      for (const q of run) out.push(await q());
      return out as unknown as T;
    },
  };
}

/** PostgreSQL's code for a unique violation. */
export const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505';

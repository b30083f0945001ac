/**
 * Transactions for the PostgreSQL store. A transaction is drizzle's (BEGIN … COMMIT on one pooled
 * connection); the repositories find it through AsyncLocalStorage, so every call made in the transaction's
 * async context, on `tx` or on the outer store, runs on that connection and is part of it. Nested
 * transactions join the outer one, as in the SQLite store.
 *
 * The transaction's connection is taken from the pool here rather than by drizzle, which, on a pool, sends
 * BEGIN before its try: a BEGIN that failed (the database restarting, or silent past its bound) kept its
 * connection out of the pool for good, and enough of them left a node with none once the database was
 * back. A connection whose transaction failed for the connection's sake is given back with the error, so
 * the pool drops it rather than hand it out in an unknown state.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from '../../../drizzle/pg/schema.js';
import type { PgDb } from './connection.js';
import { connectionLoss } from './unavailable.js';

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
  /** Runs `fn` on the open transaction's connection, or on a pooled one: for what drizzle does not send (COPY). */
  withClient<T>(fn: (client: pg.ClientBase) => Promise<T>): Promise<T>;
}

export function createPgContext(db: PgDb): PgContext {
  /** The open transaction, and the connection it runs on. */
  const current = new AsyncLocalStorage<{ tx: PgConn; client: pg.ClientBase }>();
  const pool = db.$client instanceof pg.Pool ? db.$client : null;
  /** A drizzle over each pooled connection, made once: the pool hands the same clients out again and again. */
  const over = new WeakMap<pg.PoolClient, PgDb>();
  async function onPooledConnection<T>(p: pg.Pool, fn: () => Promise<T>): Promise<T> {
    const client = await p.connect();
    let db1 = over.get(client);
    if (!db1) over.set(client, (db1 = drizzle(client, { schema })));
    let lost: Error | undefined;
    try {
      return await db1.transaction((tx) => current.run({ tx, client }, fn));
    } catch (err) {
      if (connectionLoss(err) !== undefined) lost = err as Error;
      throw err;
    } finally {
      client.release(lost);
    }
  }
  return {
    conn: () => current.getStore()?.tx ?? db,
    transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (current.getStore()) return fn();
      if (pool) return onPooledConnection(pool, fn);
      return db.transaction((tx) => current.run({ tx, client: db.$client as pg.ClientBase }, fn));
    },
    async all<T extends readonly unknown[]>(queries: { [K in keyof T]: () => PromiseLike<T[K]> }): Promise<T> {
      const run = queries as readonly (() => PromiseLike<unknown>)[];
      if (!current.getStore()) return (await Promise.all(run.map((q) => q()))) as unknown as T;
      const out: unknown[] = [];
      for (const q of run) out.push(await q());
      return out as unknown as T;
    },
    async withClient<T>(fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
      const open = current.getStore();
      if (open) return fn(open.client);
      if (!pool) return fn(db.$client as pg.ClientBase);
      const client = await pool.connect();
      let lost: Error | undefined;
      try {
        return await fn(client);
      } catch (err) {
        if (connectionLoss(err) !== undefined) lost = err as Error;
        throw err;
      } finally {
        client.release(lost);
      }
    },
  };
}

/** PostgreSQL's code for a unique violation. */
export const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505';

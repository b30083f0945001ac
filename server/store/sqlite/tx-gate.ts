/**
 * Transactions over one better-sqlite3 connection for async callers.
 *
 * better-sqlite3 is synchronous and its own transactions cannot await. Here a transaction is BEGIN
 * IMMEDIATE … COMMIT around an async callback, and one runs at a time (a queue of promises). While one is
 * open, calls from outside it wait for it to end, so nothing else joins it by accident; calls made inside
 * it (its async context, tracked by AsyncLocalStorage) go straight through, including nested transactions,
 * which become part of the outer one. With no transaction open, a call runs at once.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';

export interface TxGate {
  /** Runs `f` (synchronous database work) once no transaction it is not part of is open. */
  call<T>(f: () => T): Promise<T>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

export function createTxGate(sqlite: Database.Database): TxGate {
  const inside = new AsyncLocalStorage<true>();
  let tail: Promise<void> = Promise.resolve();
  let open = 0;

  return {
    async call<T>(f: () => T): Promise<T> {
      while (open > 0 && !inside.getStore()) await tail;
      return f();
    },

    async transaction<T>(fn: () => Promise<T>): Promise<T> {
      if (inside.getStore()) return fn();
      open++;
      const before = tail;
      let release!: () => void;
      tail = new Promise<void>((resolve) => (release = resolve));
      try {
        await before;
        sqlite.exec('BEGIN IMMEDIATE');
        try {
          const out = await inside.run(true, fn);
          sqlite.exec('COMMIT');
          return out;
        } catch (err) {
          if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
          throw err;
        }
      } finally {
        open--;
        release();
      }
    },
  };
}

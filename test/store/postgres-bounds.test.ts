/**
 * The team store's bounded waits (server/store/postgres/bounded-waits.ts) on a real PostgreSQL
 * (scripts/team-services.sh): a statement held past database_timeout_ms (behind a row lock, or on a server
 * frozen with SIGSTOP) fails DATABASE_UNAVAILABLE at the bound, the server cancels it, the pool keeps all its
 * connections, and a store opened for long statements (as `lectern migrate` opens it) is not cut.
 */
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type OpenedPostgres, type PostgresOptions } from '../../server/store/postgres/connection.js';
import { createPostgresStore } from '../../server/store/postgres/postgres-store.js';
import type { Store } from '../../server/store/store.js';
import { repoRoot } from '../helpers/app.js';
import { freezePostgres, type FrozenPostgres } from '../helpers/freeze-postgres.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { readerKey } from './contract/key-fixtures.js';

const services = useTeamServices();
const BOUND_MS = 1000;
const opened: OpenedPostgres[] = [];
let admin: pg.Pool;
let made = 0;
let frozen: FrozenPostgres | undefined;

beforeAll(() => {
  admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 3 });
});
afterEach(async () => {
  frozen?.thaw();
  for (const d of opened.splice(0)) await d.close();
});
afterAll(async () => {
  await admin?.end();
});

async function openStore(o: PostgresOptions): Promise<{ store: Store; db: OpenedPostgres; url: string }> {
  const url = await freshDatabase(services().env.LECTERN_DATABASE_URL, `bounds_${process.pid}_${++made}`, admin);
  const db = await openPostgres(url, join(repoRoot, 'drizzle', 'pg'), o);
  opened.push(db);
  return { store: createPostgresStore(db), db, url };
}

/** Holds the row of key `name` locked (FOR UPDATE) on a connection of its own until `release()`. */
async function lockKey(url: string, name: string): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('BEGIN');
  await c.query('SELECT 1 FROM api_keys WHERE name = $1 FOR UPDATE', [name]);
  return {
    async release() {
      await c.query('ROLLBACK');
      await c.end();
    },
  };
}

/** The store's statements waiting on a lock in that database. */
const waiting = async (url: string): Promise<number> =>
  (
    await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`,
      [new URL(url).pathname.slice(1)],
    )
  ).rows[0].n;

async function elapsed<T>(work: Promise<T>): Promise<{ ms: number; outcome: T | unknown }> {
  const t = performance.now();
  const outcome = await work.catch((err: unknown) => err);
  return { ms: performance.now() - t, outcome };
}

describe('bounded waits on the team store', () => {
  it('fails a statement held past the bound with DATABASE_UNAVAILABLE at the bound; the database cancels it and the store goes on', async () => {
    const { store, db, url } = await openStore({ max: 2, timeoutMs: BOUND_MS });
    await store.keys.insert(readerKey('held'));
    const lock = await lockKey(url, 'held');
    try {
      const { ms, outcome } = await elapsed(store.keys.revoke('held', '2026-01-02T00:00:00.000Z'));
      expect(outcome).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503, details: { retry_after_s: 2 } });
      expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
      expect(ms).toBeLessThan(BOUND_MS + 1000);
      // Not left waiting on the server either.
      await expect.poll(() => waiting(url), { timeout: 2 * BOUND_MS }).toBe(0);
    } finally {
      await lock.release();
    }
    expect(await store.keys.revoke('held', '2026-01-02T00:00:00.000Z')).toMatchObject({
      name: 'held',
      revoked_at: '2026-01-02T00:00:00.000Z',
    });
    expect(db.pool.totalCount).toBeLessThanOrEqual(2);
  });

  it('gives back the connection of a transaction whose statement ran past the bound: a pool of one goes on', async () => {
    const { store, url } = await openStore({ max: 1, timeoutMs: BOUND_MS });
    await store.keys.insert(readerKey('in-tx'));
    const lock = await lockKey(url, 'in-tx');
    try {
      await expect(
        store.transaction((tx) => tx.keys.revoke('in-tx', '2026-01-02T00:00:00.000Z')),
      ).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    } finally {
      await lock.release();
    }
    for (const n of [1, 2]) await store.transaction((tx) => tx.keys.insert(readerKey(`after-${n}`)));
    // Listed by creation time, then name: all were made at the same instant.
    expect((await store.keys.list()).map((k) => [k.name, k.revoked_at])).toEqual([
      ['after-1', null],
      ['after-2', null],
      ['in-tx', null],
    ]);
  });

  it('lets a store opened for long statements (lectern migrate) wait for as long as a statement takes', async () => {
    const { store, url } = await openStore({ max: 2, timeoutMs: BOUND_MS, longStatements: true });
    await store.keys.insert(readerKey('slow'));
    const lock = await lockKey(url, 'slow');
    // The lock is held for twice the bound, then let go.
    const released = new Promise((r) => setTimeout(r, 2 * BOUND_MS)).then(() => lock.release());
    const { ms, outcome } = await elapsed(store.keys.revoke('slow', '2026-01-02T00:00:00.000Z'));
    await released;
    expect(outcome).toMatchObject({ name: 'slow', revoked_at: '2026-01-02T00:00:00.000Z' });
    expect(ms).toBeGreaterThanOrEqual(2 * BOUND_MS - 50);
  });

  it('answers DATABASE_UNAVAILABLE within the bound while the database is frozen, and has all its connections once it thaws', async () => {
    const { store, db } = await openStore({ max: 2, timeoutMs: BOUND_MS });
    await store.keys.insert(readerKey('before'));
    // Both connections opened and idle in the pool, as on a node that has been serving.
    await Promise.all([1, 2].map(() => store.transaction(async (tx) => tx.keys.list())));
    frozen = await freezePostgres(join(services().dir, 'pg'));
    try {
      // Transactions first: each BEGIN gets no answer (a BEGIN that failed used to keep its connection).
      const calls: (() => Promise<unknown>)[] = [
        () => store.transaction((tx) => tx.keys.list()),
        () => store.transaction((tx) => tx.keys.list()),
        () => store.transaction((tx) => tx.keys.insert(readerKey('during'))),
        () => store.keys.list(),
      ];
      for (const call of calls) {
        const { ms, outcome } = await elapsed(call());
        expect(outcome).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503 });
        expect(ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
        expect(ms).toBeLessThan(BOUND_MS + 1000);
      }
    } finally {
      frozen.thaw();
    }
    const back = await Promise.all(
      [1, 2, 3, 4].map((n) => store.transaction((tx) => tx.keys.insert(readerKey(`back-${n}`)))),
    );
    expect(back.map((k) => k.name)).toEqual(['back-1', 'back-2', 'back-3', 'back-4']);
    // The insert sent while frozen never reached a commit.
    expect((await store.keys.list()).map((k) => k.name)).toEqual(['back-1', 'back-2', 'back-3', 'back-4', 'before']);
    expect(db.pool.totalCount).toBeLessThanOrEqual(2);
  });
});

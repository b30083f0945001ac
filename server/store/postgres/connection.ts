/**
 * Opening the team server's database: connect, check, migrate (and index again full text an earlier version wrote).
 *
 * Lifetimes: the pool holds up to `max` connections for the process's life, each of its waits bounded
 * (bounded-waits.ts). Migration takes a connection of its own, outside the pool and without the statement
 * bound (a migration may rightly run for minutes), and holds it and a session advisory lock for as long as
 * it runs, so nodes starting together migrate once (the others wait on the lock, then find nothing to do).
 * A node that dies while migrating drops its connection and with it the lock; the migration's own
 * transaction rolls back.
 */
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from '../../../drizzle/pg/schema.js';
import { SettingsError } from '../../schemas/settings.js';
import { boundedPoolConfig, connectionConfig } from './bounded-waits.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './defaults.js';
import { upgradeTextTables } from './full-text-upgrade.js';
import { newestKnownMigration } from '../schema-version.js';

/** The database, with the pool (or the one connection) it runs on. */
export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool | pg.PoolClient | pg.Client };

/** The advisory lock key migrations take ("lectern" in ASCII, as a 64-bit number). */
const MIGRATION_LOCK = 0x6c65637465726en;

export interface OpenedPostgres {
  db: PgDb;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** The URL with its password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return '(not a URL)';
  }
}

const refuse = (url: string, why: string): SettingsError => new SettingsError(`database_url ${redactUrl(url)}: ${why}`);

async function checkAndMigrate(client: pg.Client, url: string, migrationsFolder: string): Promise<void> {
  const vector = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  if (vector.rowCount === 0) {
    throw refuse(
      url,
      'this PostgreSQL has no pgvector extension: install it on the database server (Debian/Ubuntu: apt install postgresql-<version>-pgvector; see github.com/pgvector/pgvector), then start again',
    );
  }
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    const table = await client.query<{ t: string | null }>(
      `SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t`,
    );
    const applied = table.rows[0]?.t
      ? await client.query<{ newest: string | null }>(
          'SELECT max(created_at)::text AS newest FROM drizzle.__drizzle_migrations',
        )
      : undefined;
    const newest = Number(applied?.rows[0]?.newest ?? 0);
    if (newest > newestKnownMigration(migrationsFolder)) {
      throw refuse(
        url,
        'the database was migrated by a newer version of Lectern; start that version (a database is never migrated backwards)',
      );
    }
    const db = drizzle(client, { schema });
    await migrate(db, { migrationsFolder });
    // Under the same lock: full text written by an earlier version is made of words once (full-text-upgrade.ts).
    await upgradeTextTables(db);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
  }
}

export interface PostgresOptions {
  /** Pooled connections at most. */
  max?: number;
  /** How long to wait for a connection and (unless `longStatements`) for one statement's answer. */
  timeoutMs?: number;
  /** The pool's statements are not bounded (bulk copies that may rightly take long). */
  longStatements?: boolean;
}

/** Connects to `url`, refuses a server it cannot use with one clear line (SettingsError), and migrates it. */
export async function openPostgres(
  url: string,
  migrationsFolder: string,
  opts: PostgresOptions = {},
): Promise<OpenedPostgres> {
  if (!/^postgres(ql)?:\/\//.test(url))
    throw refuse(url, 'must start with postgres:// (e.g. postgres://user:password@host:5432/lectern)');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  // Its own connection, with the pool's bound on connecting and TCP keepalive, but none on statements.
  const client = new pg.Client(connectionConfig(url, timeoutMs));
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw refuse(url, `cannot connect: ${(err as Error).message || (err as { code?: string }).code || String(err)}`);
  }
  try {
    await checkAndMigrate(client, url, migrationsFolder);
  } catch (err) {
    if ((err as { code?: string }).code === 'INVALID_SETTINGS') throw err;
    throw refuse(url, `cannot prepare the database: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const pool = new pg.Pool(
    boundedPoolConfig(url, { max: opts.max ?? 10, timeoutMs, longStatements: opts.longStatements }),
  );
  // An idle connection the server dropped (a restart) errors here; the pool replaces it on the next query.
  pool.on('error', () => undefined);
  // A connection the pool has handed out has no listener of the pool's: node-postgres emits 'error' on it
  // when the server ends it (a restart's "terminating connection due to administrator command", then
  // "Connection terminated unexpectedly"), also while a query runs and between the statements of a
  // transaction, and when a statement's bound breaks it. An 'error' event nobody listens to throws, and the
  // node died of it. The query in flight rejects on its own and the client is marked unusable, so the pool
  // drops it on release: nothing more to do here than to listen.
  pool.on('connect', (c) => c.on('error', () => undefined));
  return { db: drizzle(pool, { schema }), pool, close: () => pool.end() };
}

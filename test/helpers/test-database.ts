/**
 * The test suite's store switch. `LECTERN_TEST_STORE=postgres npm test` starts the team services once for
 * the run (global-setup.ts) and gives every test server a database of its own on them, instead of the data
 * folder's SQLite, and a prefix of its own in the services' S3 bucket (object_store_url) for its originals,
 * page images and exports, instead of the data folder (LECTERN_TEST_OBJECT_STORE=folder keeps them in the
 * folder). A server started again on the same data folder finds the same database and prefix, as a
 * restarted team node would.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../../server/store/postgres/connection.js';

/** Set by the global setup for the test workers: the services' own database, for creating others. */
export const ADMIN_URL_VAR = 'LECTERN_TEST_ADMIN_DATABASE_URL';
/** Set by the global setup for the test workers: the services' bucket (s3://lectern/), each server under a prefix of it. */
export const OBJECT_STORE_VAR = 'LECTERN_TEST_OBJECT_STORE_URL';
/** A migrated, empty database each test database is copied from (a copy is much faster than migrating). */
const TEMPLATE = 'lectern_test_template';

/**
 * The shared queue's lease for test servers on PostgreSQL: a server killed in a test gives its documents to
 * the next one this soon, not after the 30 s a team server waits. Long enough that a loaded machine's pauses
 * do not take a live server's documents from it.
 */
export const TEST_TASK_LEASE_MS = 10_000;

export const testStore = (): 'sqlite' | 'postgres' =>
  process.env.LECTERN_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.href;
}

async function admin<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Run once before the tests: the template, migrated by the product's own start-up path. */
export async function prepareTemplate(adminUrl: string, repoRoot: string): Promise<void> {
  await admin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
    await c.query(`CREATE DATABASE ${TEMPLATE}`);
  });
  const opened = await openPostgres(withDatabase(adminUrl, TEMPLATE), join(repoRoot, 'drizzle', 'pg'), { max: 1 });
  await opened.close();
}

/** A test server's own name on the services, the same for the same folder. */
const nameFor = (dataDir: string): string => `t_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`;

/** The object_store_url of the test server on `dataDir` (a prefix of its own in the bucket), or undefined: its data folder. */
export function objectStoreFor(dataDir: string): string | undefined {
  const bucket = process.env[OBJECT_STORE_VAR];
  if (testStore() !== 'postgres' || !bucket) return undefined;
  return `${bucket.replace(/\/+$/, '')}/${nameFor(dataDir)}`;
}

/** What a command run on a test server's folder is given to find the server's store: its database and bucket. */
export async function storeEnvFor(dataDir: string): Promise<Record<string, string>> {
  const database = await databaseFor(dataDir);
  const objects = objectStoreFor(dataDir);
  return {
    ...(database ? { LECTERN_DATABASE_URL: database } : {}),
    ...(objects ? { LECTERN_OBJECT_STORE_URL: objects } : {}),
  };
}

/** The database of the test server on `dataDir`: made from the template the first time, the same one after. */
export async function databaseFor(dataDir: string): Promise<string | undefined> {
  const adminUrl = process.env[ADMIN_URL_VAR];
  if (testStore() !== 'postgres') return undefined;
  if (!adminUrl) throw new Error(`LECTERN_TEST_STORE=postgres, but the global setup set no ${ADMIN_URL_VAR}`);
  const name = nameFor(dataDir);
  await admin(adminUrl, async (c) => {
    const found = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return;
    try {
      await c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
    } catch (err) {
      // Two servers on one folder started together: the other one made it.
      if ((err as { code?: string }).code !== '42P04') throw err;
    }
  });
  return withDatabase(adminUrl, name);
}

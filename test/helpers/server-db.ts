/**
 * What a test server's store holds, read beside the server: its data folder's SQLite file, or its PostgreSQL
 * database under LECTERN_TEST_STORE=postgres. For assertions the API cannot make (nothing left of a deleted
 * job, a secret stored only hashed, words sealed at rest), written once for both stores.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { textTableName, vectorTableName } from '../../server/store/postgres/collection-tables.js';
import { openVectorIndex } from '../../server/store/usearch/vector-index.js';
import { databaseFor } from './test-database.js';

/** bigint counts as numbers, as SQLite gives them. */
const types = {
  getTypeParser: (oid: number, format?: string) =>
    oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'),
};

/** Runs `query` (placeholders `?`) on the store of the server on `dataDir`, running or stopped. */
export async function storeRows<T = Record<string, unknown>>(
  dataDir: string,
  query: string,
  params: unknown[] = [],
): Promise<T[]> {
  const url = await databaseFor(dataDir);
  if (!url) {
    // WAL lets a reader in beside a running server.
    const db = new Database(join(dataDir, 'lectern.db'), { readonly: true });
    try {
      return db.prepare(query).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url, types });
  await client.connect();
  try {
    let n = 0;
    return (
      await client.query(
        query.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as T[];
  } finally {
    await client.end();
  }
}

/** `SELECT count(*) AS n …` as a number. */
export async function storeCount(dataDir: string, query: string, params: unknown[] = []): Promise<number> {
  const [row] = await storeRows<{ n: number }>(dataDir, query, params);
  return Number(row?.n ?? 0);
}

/** Whether anything of a collection's vectors is stored: its USearch file, or its PostgreSQL tables. */
export async function collectionStored(dataDir: string, collection: string): Promise<boolean> {
  if (!(await databaseFor(dataDir))) {
    const dir = join(dataDir, 'indexes');
    return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(`c-${collection}.usearch`));
  }
  const rows = await storeRows<{ t: string | null }>(
    dataDir,
    'SELECT to_regclass(?)::text AS t UNION ALL SELECT to_regclass(?)::text',
    [vectorTableName(collection), textTableName(collection)],
  );
  return rows.some((r) => r.t !== null);
}

/** How many vectors a collection holds: its USearch file's size, or its PostgreSQL table's rows (0 when it has none). */
export async function collectionSize(dataDir: string, collection: string): Promise<number> {
  if (!(await databaseFor(dataDir))) {
    const file = join(dataDir, 'indexes', `c-${collection}.usearch`);
    return existsSync(file)
      ? openVectorIndex({ path: file, dimensions: 384, metric: 'cos', quantization: 'f16', view: true }).size
      : 0;
  }
  if (!(await collectionStored(dataDir, collection))) return 0;
  return storeCount(dataDir, `SELECT count(*) AS n FROM ${vectorTableName(collection)}`);
}

/**
 * Text tables written before full-text words (collection-tables.ts: no TEXT_TABLE_WORDS comment) are
 * indexed again at start, so that Chinese and Japanese words in them are found. Only rows whose text holds
 * a non-ASCII character can change (`fullTextWords` gives ASCII text as it is), so only those are done.
 *
 * Lifetimes: it runs while the node holds the migration lock (connection.ts), so nodes starting together do
 * it once. Each batch is a transaction of its own and the comment is set last: a node that dies part way
 * leaves the table without it, and the next start does the table again (indexing a row twice is harmless).
 */
import { sql } from 'drizzle-orm';
import { reindexTexts, TEXT_TABLE_WORDS } from './collection-tables.js';
import type { PgDb } from './connection.js';

const BATCH = 500;
/** A character outside ASCII (PostgreSQL's regular expressions take \x escapes). */
const NON_ASCII = '[^\\x01-\\x7f]';

/** Indexes again the text tables written before full-text words; answers how many rows it did. */
export async function upgradeTextTables(db: Pick<PgDb, 'execute' | 'transaction'>): Promise<number> {
  const tables = await db.execute<{ name: string }>(sql`
    SELECT c.relname AS name FROM pg_class c
    WHERE c.relkind = 'r' AND c.relname LIKE 'lectern\\_fts\\_%' AND c.relnamespace = current_schema()::regnamespace
      AND obj_description(c.oid, 'pg_class') IS DISTINCT FROM ${TEXT_TABLE_WORDS}
    ORDER BY c.relname`);
  let done = 0;
  for (const { name } of tables.rows) {
    const t = sql.identifier(name);
    for (let after = 0; ; ) {
      const ids = await db.execute<{ id: number }>(sql`
        SELECT x.id FROM ${t} x JOIN chunk_vectors cv ON cv.id = x.id
        WHERE x.id > ${after} AND cv.text ~ ${NON_ASCII} ORDER BY x.id LIMIT ${BATCH}`);
      const batch = ids.rows.map((r) => Number(r.id));
      if (batch.length === 0) break;
      await db.transaction((tx) => reindexTexts(tx, name, batch));
      done += batch.length;
      after = batch.at(-1)!;
    }
    await db.execute(sql`COMMENT ON TABLE ${t} IS ${sql.raw(`'${TEXT_TABLE_WORDS}'`)}`);
  }
  return done;
}

/**
 * Text tables an earlier version wrote (collection-tables.ts: another comment than TEXT_TABLE_WORDS) are
 * indexed again at start, only in the rows whose entries change:
 * - written before full-text words (no comment): rows whose text holds a non-ASCII character (`fullTextWords`
 *   gives ASCII text as it is), so that Chinese and Japanese words in them are found;
 * - either: rows in a language indexed with stems (full-text-stems.ts; each row's language is its job's,
 *   set by the migration drizzle/pg/0004_chunk_language.sql), so that their inflected forms are found.
 * English rows keep the entries they had.
 *
 * Lifetimes: it runs while the node holds the migration lock (connection.ts), so nodes starting together do
 * it once. Each batch is a transaction of its own and the comment is set last: a node that dies part way
 * leaves the table with its earlier comment, and the next start does the table again (indexing a row twice
 * is harmless).
 */
import { type SQL, sql } from 'drizzle-orm';
import { STEMMED_LANGUAGES } from '../full-text-stems.js';
import { reindexTexts, TEXT_TABLE_WORDS, TEXT_TABLE_WORDS_WITHOUT_STEMS } from './collection-tables.js';
import type { PgDb } from './connection.js';

const BATCH = 500;
/** A character outside ASCII (PostgreSQL's regular expressions take \x escapes). */
const NON_ASCII = '[^\\x01-\\x7f]';

/** Which rows of a table with this comment are indexed again. */
function changedRows(comment: string | null): SQL {
  const stemmed = sql`cv.language = ANY(${sql.param([...STEMMED_LANGUAGES])}::text[])`;
  return comment === TEXT_TABLE_WORDS_WITHOUT_STEMS ? stemmed : sql`(cv.text ~ ${NON_ASCII} OR ${stemmed})`;
}

/** Indexes again the text tables an earlier version wrote; answers how many rows it did. */
export async function upgradeTextTables(db: Pick<PgDb, 'execute' | 'transaction'>): Promise<number> {
  const tables = await db.execute<{ name: string; comment: string | null }>(sql`
    SELECT c.relname AS name, obj_description(c.oid, 'pg_class') AS comment FROM pg_class c
    WHERE c.relkind = 'r' AND c.relname LIKE 'lectern\\_fts\\_%' AND c.relnamespace = current_schema()::regnamespace
      AND obj_description(c.oid, 'pg_class') IS DISTINCT FROM ${TEXT_TABLE_WORDS}
    ORDER BY c.relname`);
  let done = 0;
  for (const { name, comment } of tables.rows) {
    const t = sql.identifier(name);
    for (let after = 0; ; ) {
      const ids = await db.execute<{ id: number }>(sql`
        SELECT x.id FROM ${t} x JOIN chunk_vectors cv ON cv.id = x.id
        WHERE x.id > ${after} AND ${changedRows(comment)} ORDER BY x.id LIMIT ${BATCH}`);
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

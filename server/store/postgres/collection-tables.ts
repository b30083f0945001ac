/**
 * The tables PostgreSQL keeps per collection, made by the store when a collection is first written (the
 * schema mirrors the desktop's tables; these have no desktop counterpart):
 * - `lectern_vec_<h>`: (key, embedding) with an HNSW index for cosine distance, the column `vector(d)`
 *   for f32 collections and `halfvec(d)` for f16 and i8 ones (pgvector has no 8-bit type);
 * - `lectern_fts_<h>`: (id, tsv, len) for each chunk_vectors row of the collection, its embedded text as
 *   a tsvector (GIN-indexed) and its length in words, for BM25; rows leave with their chunk_vectors row.
 *   The tsvector is made of the text's words as full-text-words.ts gives them (Chinese and Japanese cut
 *   into words) with their stems in the row's language (full-text-stems.ts); the table's comment says so
 *   (TEXT_TABLE_WORDS), and one written before (another comment or none) is indexed again at start
 *   (full-text-upgrade.ts).
 * The vector table is named by the collection's `vectorIndexName` (another name after a reindex). `<h>` is a
 * hash of the name: names may hold '.' and '-' and run past PostgreSQL's 63-byte identifiers.
 */
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { chunkFullText } from '../full-text-stems.js';
import { vectorIndexName, type VectorCollectionSpec } from '../repos/search-index.js';
import type { PgConn } from './context.js';

const suffix = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 24);

/** The names of a collection's two tables (exported for tests and tools that look at the database itself). */
export const vectorTableName = (name: string) => `lectern_vec_${suffix(name)}`;
export const textTableName = (name: string) => `lectern_fts_${suffix(name)}`;
export const vectorTable = (name: string): SQL => sql`${sql.identifier(vectorTableName(name))}`;
export const textTable = (name: string): SQL => sql`${sql.identifier(textTableName(name))}`;

/**
 * Whether the collection's table exists (a collection never written, or dropped, has none). Asked before
 * reading rather than caught after, so that a read inside a transaction never aborts it.
 */
async function exists(conn: PgConn, table: string): Promise<boolean> {
  const res = await conn.execute<{ t: string | null }>(sql`SELECT to_regclass(${table})::text AS t`);
  return Boolean(res.rows[0]?.t);
}
export const hasVectorTable = (conn: PgConn, name: string) => exists(conn, vectorTableName(name));
export const hasTextTable = (conn: PgConn, name: string) => exists(conn, textTableName(name));

/** The text search configuration: English stemming (Snowball), as the desktop's FTS5 stems with Porter. */
export const TS_CONFIG = sql.raw(`'english'::regconfig`);

/**
 * HNSW build settings. pgvector's default ef_construction (64) leaves a graph that at a million vectors finds
 * 0.90 of the true top 10 at ef_search 100 and 0.945 at 200; built with 128 it finds 0.995 at 100, for a build
 * that takes longer (bench:search --backends pgvector --sizes 1000000). Indexes made before keep their settings.
 */
const HNSW = 'WITH (m = 16, ef_construction = 128)';

export const vectorType = (c: Pick<VectorCollectionSpec, 'dimensions' | 'quantization'>): SQL =>
  sql.raw(`${c.quantization === 'f32' ? 'vector' : 'halfvec'}(${Math.trunc(c.dimensions)})`);

/** Creates a table once, also when several nodes try at the same moment (the lock makes them take turns). */
async function createOnce(conn: PgConn, name: string, statements: SQL[]): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${name}))`);
  for (const s of statements) await conn.execute(s);
}

/** Call inside a transaction. */
export async function ensureVectorTable(conn: PgConn, c: VectorCollectionSpec): Promise<void> {
  const name = vectorIndexName(c);
  const t = vectorTable(name);
  const ops = sql.raw(c.quantization === 'f32' ? 'vector_cosine_ops' : 'halfvec_cosine_ops');
  await createOnce(conn, `vec:${name}`, [
    sql`CREATE TABLE IF NOT EXISTS ${t} (key integer PRIMARY KEY, embedding ${vectorType(c)} NOT NULL)`,
    sql`CREATE INDEX IF NOT EXISTS ${sql.identifier(`lectern_vec_${suffix(name)}_hnsw`)} ON ${t} USING hnsw (embedding ${ops}) ${sql.raw(HNSW)}`,
  ]);
}

/**
 * The comment of a text table whose tsvectors were made of `chunkFullText` (words and stems); tables with the
 * earlier comment hold words without stems, tables without one predate full-text words.
 */
export const TEXT_TABLE_WORDS = 'lectern full-text words 2';
export const TEXT_TABLE_WORDS_WITHOUT_STEMS = 'lectern full-text words 1';

/**
 * Call inside a transaction. A table made here is filled by `indexTexts` only, so it is marked as holding
 * words from the start; one an earlier version made is left unmarked for full-text-upgrade.ts.
 */
export async function ensureTextTable(conn: PgConn, name: string): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`fts:${name}`}))`);
  if (await hasTextTable(conn, name)) return;
  const t = textTable(name);
  await conn.execute(
    sql`CREATE TABLE ${t} (id integer PRIMARY KEY REFERENCES chunk_vectors (id) ON DELETE CASCADE, tsv tsvector NOT NULL, len integer NOT NULL)`,
  );
  await conn.execute(sql`CREATE INDEX ${sql.identifier(`lectern_fts_${suffix(name)}_gin`)} ON ${t} USING gin (tsv)`);
  await conn.execute(sql`COMMENT ON TABLE ${t} IS ${sql.raw(`'${TEXT_TABLE_WORDS}'`)}`);
}

/** A tsvector and its length in words (for BM25) from values already made words (chunkFullText). */
const TSV_AND_LEN = (words: SQL) => sql`
  SELECT v.tsv, (SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0) FROM unnest(v.tsv) u) AS len
  FROM (SELECT to_tsvector(${TS_CONFIG}, ${words}) AS tsv) v`;

/** The text of these chunk_vectors rows, made words and stems in each row's language, as two arrays for `unnest`. */
async function wordsOf(conn: PgConn, ids: readonly number[]): Promise<{ ids: number[]; words: string[] }> {
  const res = await conn.execute<{ id: number; text: string; language: string | null }>(
    sql`SELECT id, text, language FROM chunk_vectors WHERE id = ANY(${sql.param([...ids])}::integer[])`,
  );
  return {
    ids: res.rows.map((r) => Number(r.id)),
    words: res.rows.map((r) => chunkFullText(r.text, r.language)),
  };
}

/**
 * Indexes the embedded text of these chunk_vectors rows of one collection for full text (its tsvector and
 * length in words, for BM25). Call inside a transaction, with the rows written in it.
 */
export async function indexTexts(conn: PgConn, name: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await ensureTextTable(conn, name);
  const rows = await wordsOf(conn, ids);
  await conn.execute(sql`
    INSERT INTO ${textTable(name)} (id, tsv, len)
    SELECT r.id, t.tsv, t.len
    FROM unnest(${sql.param(rows.ids)}::integer[], ${sql.param(rows.words)}::text[]) AS r(id, words)
    CROSS JOIN LATERAL (${TSV_AND_LEN(sql`r.words`)}) t
    ON CONFLICT (id) DO NOTHING`);
}

/** Indexes these rows of a text table (named as `textTableName` names it) again, from their chunk_vectors text. */
export async function reindexTexts(conn: PgConn, table: string, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await wordsOf(conn, ids);
  await conn.execute(sql`
    UPDATE ${sql.identifier(table)} x SET tsv = t.tsv, len = t.len
    FROM unnest(${sql.param(rows.ids)}::integer[], ${sql.param(rows.words)}::text[]) AS r(id, words)
    CROSS JOIN LATERAL (${TSV_AND_LEN(sql`r.words`)}) t
    WHERE x.id = r.id`);
}

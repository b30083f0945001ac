import { sql } from 'drizzle-orm';
import { collectionLanguagesSql } from '../full-text-languages.js';
import { queryFullText } from '../full-text-stems.js';
import type { FullText } from '../repos/search-index.js';
import { hasTextTable, textTable, TS_CONFIG } from './collection-tables.js';
import type { PgContext } from './context.js';
import { scopeSql } from './search-filters.js';

/** BM25's parameters, FTS5's defaults (written into the statement: a parameter there would be typed integer). */
const K1 = sql.raw('1.2');
const K1_PLUS_1 = sql.raw('2.2');
const B = sql.raw('0.75');

/**
 * Keyword search over the collection's tsvector table (collection-tables.ts): rows holding any of the
 * query's words (GIN), ranked by BM25 computed here from the stored term positions and lengths, with the
 * collection's row count, mean length and each word's document frequency. The query's words are made
 * lexemes by the same configuration as the text and quoted, so user text is never tsquery syntax; the query
 * is cut into words first, as the text was (full-text-words.ts), and its words' stems in the languages the
 * collection holds are added (full-text-stems.ts).
 */
export function pgFullText({ conn }: PgContext): FullText {
  return {
    async candidates(collection, query, limit, scope) {
      if (!/[\p{L}\p{N}]/u.test(query)) return [];
      // A collection nothing was written to has no table yet: nothing matches.
      if (!(await hasTextTable(conn(), collection))) return [];
      const t = textTable(collection);
      const languages = (await conn().execute<{ language: string }>(collectionLanguagesSql(collection))).rows.map(
        (r) => r.language,
      );
      const res = await conn().execute<{ id: number; score: number }>(sql`
        WITH q AS (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector(${TS_CONFIG}, ${queryFullText(query, languages)})) u),
        match AS (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) AS tsq FROM q),
        stats AS (SELECT count(*)::float8 AS n, coalesce(avg(len), 0)::float8 AS avgdl FROM ${t}),
        -- Computed once: inlined, the planner re-counted each word's documents for every hit row (seconds a query).
        df AS MATERIALIZED (SELECT q.lexeme, (SELECT count(*) FROM ${t} x WHERE x.tsv @@ to_tsquery('simple', quote_literal(q.lexeme)))::float8 AS n FROM q),
        hit AS (
          SELECT x.id, x.tsv, x.len FROM ${t} x
          JOIN chunk_vectors cv ON cv.id = x.id
          JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id
          WHERE x.tsv @@ (SELECT tsq FROM match) AND cv.collection = ${collection} ${scopeSql(scope)})
        SELECT h.id AS id,
          sum(ln(1 + (s.n - df.n + 0.5) / (df.n + 0.5)) * (w.tf * ${K1_PLUS_1}) / (w.tf + ${K1} * (1 - ${B} + ${B} * h.len / greatest(s.avgdl, 1))))::float8 AS score
        FROM hit h
        CROSS JOIN stats s
        CROSS JOIN LATERAL (SELECT u.lexeme, coalesce(array_length(u.positions, 1), 1)::float8 AS tf FROM unnest(h.tsv) u) w
        JOIN df ON df.lexeme = w.lexeme
        GROUP BY h.id
        ORDER BY score DESC, h.id
        LIMIT ${limit}`);
      return res.rows.map((r) => ({ id: Number(r.id), score: Number(r.score) }));
    },
  };
}

import { sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { collectionLanguagesSql } from '../full-text-languages.js';
import { queryFullText } from '../full-text-stems.js';
import type { FullText } from '../repos/search-index.js';
import { scopeSql } from './search-filters.js';
import type { TxGate } from './tx-gate.js';

/**
 * An FTS5 query that matches any of the query's words (BM25 ranks the documents holding more and rarer
 * ones first). Every word is quoted, so user text can never be read as FTS5 syntax (AND, NEAR, *, ":").
 * The query is cut into words as the indexed text was (full-text-words.ts): 机器学习 asks for 机器 and 学习;
 * its words' stems in `languages`, those of the searched collection, are asked for too (full-text-stems.ts).
 */
export function ftsQuery(text: string, languages: readonly string[] = []): string | undefined {
  const words =
    queryFullText(text, languages)
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  const unique = [...new Set(words)];
  return unique.length ? unique.map((w) => `"${w}"`).join(' OR ') : undefined;
}

/**
 * Keyword search over FTS5 table `chunk_fts` (drizzle/0018_full_text_words.sql): it indexes the words of
 * chunk_vectors.text with their stems in the row's language (drizzle/0020_chunk_language.sql), kept in step by
 * triggers, so keyword and vector search see exactly the same chunks.
 */
export function sqliteFullText(db: Db, gate: TxGate): FullText {
  return {
    candidates: (collection, query, limit, scope) =>
      gate.call(() => {
        const languages = db.all<{ language: string }>(collectionLanguagesSql(collection)).map((r) => r.language);
        const match = ftsQuery(query, languages);
        if (!match) return [];
        const rows = db.all<{ id: number; bm25: number }>(sql`
          SELECT cv.id AS id, bm25(chunk_fts) AS bm25
          FROM chunk_fts
          JOIN chunk_vectors cv ON cv.id = chunk_fts.rowid
          JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id
          WHERE chunk_fts MATCH ${match} AND cv.collection = ${collection} ${scopeSql(scope)}
          ORDER BY bm25 LIMIT ${limit}`);
        // SQLite's bm25() is lower-is-better (negative); flip it so every score reads "higher is better".
        return rows.map((r) => ({ id: r.id, score: -r.bm25 }));
      }),
  };
}

import { sql, type SQL } from 'drizzle-orm';
import type { DbLike } from '../../store/db.js';
import type { VectorIndex } from '../../store/vector-index.js';

export interface Candidate {
  /** chunk_vectors.id */
  id: number;
  /** Cosine similarity (vector) or BM25 made "higher is better" (keyword). */
  score: number;
}

const FROM = sql`chunk_vectors cv JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id`;

/**
 * An FTS5 query that matches any of the query's words (BM25 ranks the documents holding more and rarer
 * ones first). Every word is quoted, so user text can never be read as FTS5 syntax (AND, NEAR, *, ":").
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const unique = [...new Set(words)];
  return unique.length ? unique.map((w) => `"${w}"`).join(' OR ') : undefined;
}

export function keywordCandidates(db: DbLike, collection: string, query: string, where: SQL, limit: number): Candidate[] {
  const match = ftsQuery(query);
  if (!match) return [];
  const rows = db.all<{ id: number; bm25: number }>(sql`
    SELECT cv.id AS id, bm25(chunk_fts) AS bm25
    FROM chunk_fts
    JOIN chunk_vectors cv ON cv.id = chunk_fts.rowid
    JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id
    WHERE chunk_fts MATCH ${match} AND cv.collection = ${collection} ${where}
    ORDER BY bm25 LIMIT ${limit}`);
  // SQLite's bm25() is lower-is-better (negative); flip it so every score reads "higher is better".
  return rows.map((r) => ({ id: r.id, score: -r.bm25 }));
}

/**
 * Nearest vectors that pass the filters. The HNSW search cannot filter, so it asks for more neighbours
 * (x4 each round) until enough pass or the whole index was asked.
 */
export function vectorCandidates(db: DbLike, index: VectorIndex, collection: string, vector: Float32Array, where: SQL, limit: number, filtered: boolean): Candidate[] {
  let k = filtered ? Math.max(limit * 4, 100) : limit;
  for (;;) {
    const found = index.search(vector, Math.min(k, index.size));
    const similarity = new Map(found.keys.map((key, i) => [Number(key), 1 - found.distances[i]!]));
    const keys = [...similarity.keys()];
    const rows: { id: number; key: number }[] = [];
    for (let i = 0; i < keys.length; i += 500) {
      const part = keys.slice(i, i + 500);
      rows.push(
        ...db.all<{ id: number; key: number }>(sql`
          SELECT cv.id AS id, cv.key AS key FROM ${FROM}
          WHERE cv.collection = ${collection} AND cv.key IN (${sql.join(part.map((x) => sql`${x}`), sql`, `)}) ${where}`),
      );
    }
    if (rows.length >= limit || k >= index.size) {
      // Keys the mapping does not know (left by an interrupted embed) are dropped here.
      return rows
        .map((r) => ({ id: r.id, score: similarity.get(r.key) ?? 0 }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    }
    k *= 4;
  }
}

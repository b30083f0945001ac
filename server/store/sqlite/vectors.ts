import { sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { vectorIndexName, type Candidate, type VectorCollections } from '../repos/search-index.js';
import type { CollectionIndexes } from '../usearch/collection-indexes.js';
import { createSavedFiles } from '../usearch/saved-files.js';
import { indexSimilarities } from '../usearch/similarities.js';
import { narrows, scopeSql } from './search-filters.js';
import type { TxGate } from './tx-gate.js';

/**
 * The desktop's vectors: one USearch HNSW file per collection (usearch/), its keys mapped to chunks by
 * SQLite's chunk_vectors. Files are written whole and renamed into place, so a write survives a crash
 * whole or not at all.
 */
export function usearchVectors(db: Db, gate: TxGate, indexes: CollectionIndexes): VectorCollections {
  const savedFiles = createSavedFiles();
  return {
    open: async (specs) => indexes.openAll(specs),

    async write(c, change) {
      const index = indexes.get(c);
      if (change.remove?.length) index.remove(change.remove.map(BigInt));
      if (change.add) index.add(change.add.keys.map(BigInt), change.add.vectors);
      index.save();
    },

    async present(c, keys) {
      const index = indexes.get(c);
      return new Set(keys.filter((k) => index.has(BigInt(k))));
    },

    /**
     * The HNSW search cannot filter, so a narrowed scope asks for more neighbours (x4 each round) until
     * enough pass the filter or the whole index was asked.
     */
    async nearest(c, query, limit, scope) {
      const index = indexes.get(c);
      const where = scopeSql(scope);
      let k = narrows(scope) ? Math.max(limit * 4, 100) : limit;
      for (;;) {
        const found = index.search(query, Math.min(k, index.size));
        const similarity = new Map(found.keys.map((key, i) => [Number(key), 1 - found.distances[i]!]));
        const keys = [...similarity.keys()];
        const rows = await gate.call(() => {
          const out: { id: number; key: number }[] = [];
          for (let i = 0; i < keys.length; i += 500) {
            const part = keys.slice(i, i + 500);
            out.push(
              ...db.all<{ id: number; key: number }>(sql`
                SELECT cv.id AS id, cv.key AS key
                FROM chunk_vectors cv JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id
                WHERE cv.collection = ${c.name} AND cv.key IN (${sql.join(
                  part.map((x) => sql`${x}`),
                  sql`, `,
                )}) ${where}`),
            );
          }
          return out;
        });
        if (rows.length >= limit || k >= index.size) {
          // Keys no row maps (left by an embed cut short) are dropped here.
          return rows
            .map((r): Candidate => ({ id: r.id, score: similarity.get(r.key) ?? 0 }))
            .sort((a, b) => b.score - a.score)
            .slice(0, limit);
        }
        k *= 4;
      }
    },

    similarities: async (c, query, keys) => indexSimilarities(indexes.get(c), query, keys),

    async read(c, keys) {
      // Read from the saved file, not the open index (the binding cannot hand a vector back): writes save
      // the file at once, so it holds what the index holds, and reading it needs no index loaded in RAM.
      const saved = savedFiles.open(indexes.pathOf(vectorIndexName(c)));
      return saved ? saved.read(keys) : new Map();
    },

    drop: async (name) => {
      savedFiles.forget(indexes.pathOf(name));
      indexes.drop(name);
    },
  };
}

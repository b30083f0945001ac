import { sql, type SQL } from 'drizzle-orm';
import { vectorIndexName, type VectorCollections, type VectorCollectionSpec } from '../repos/search-index.js';
import { ensureVectorTable, hasVectorTable, vectorTable, vectorType } from './collection-tables.js';
import type { PgContext } from './context.js';
import { scopeSql } from './search-filters.js';

/** Vectors per INSERT: a 384-d vector is ~4 KB of text, so a statement stays a few MB. */
const BATCH = 500;
/**
 * Candidates the HNSW scan keeps (hnsw.ef_search), at least: as the desktop's USearch (ef 128). pgvector
 * returns at most ef_search rows from an index scan, so a longer list asks for as many; 1,000 is its limit.
 */
const EF_SEARCH = 128;
const EF_SEARCH_MAX = 1000;

const literal = (v: Float32Array | number[]) => `[${Array.from(v).join(',')}]`;
const queryParam = (c: VectorCollectionSpec, q: Float32Array): SQL => sql`${literal(q)}::${vectorType(c)}`;

/**
 * The team server's vectors: a pgvector table per collection (collection-tables.ts) with an HNSW index for
 * cosine distance. A filtered search lets pgvector's iterative scan go on past ef_search until enough rows
 * pass the filter (relaxed order: the rows are sorted again here).
 */
export function pgVectors(ctx: PgContext): VectorCollections {
  const { conn } = ctx;
  return {
    async open(specs) {
      for (const c of specs) await ctx.transaction(() => ensureVectorTable(conn(), c));
    },

    write: (c, change) =>
      ctx.transaction(async () => {
        await ensureVectorTable(conn(), c);
        const t = vectorTable(vectorIndexName(c));
        if (change.remove?.length)
          await conn().execute(sql`DELETE FROM ${t} WHERE key = ANY(${sql.param([...change.remove])}::integer[])`);
        const add = change.add;
        if (!add) return;
        const d = c.dimensions;
        if (add.vectors.length !== add.keys.length * d)
          throw new Error(`write: ${add.keys.length} keys but ${add.vectors.length / d} vectors of ${d} dimensions`);
        for (let i = 0; i < add.keys.length; i += BATCH) {
          const keys = add.keys.slice(i, i + BATCH);
          const rows = keys.map((_, j) => literal(add.vectors.subarray((i + j) * d, (i + j + 1) * d)));
          await conn().execute(sql`
            INSERT INTO ${t} (key, embedding)
            SELECT u.k, u.e::${vectorType(c)} FROM unnest(${sql.param(keys)}::integer[], ${sql.param(rows)}::text[]) AS u(k, e)
            ON CONFLICT (key) DO UPDATE SET embedding = EXCLUDED.embedding`);
        }
      }),

    async present(c, keys) {
      if (keys.length === 0 || !(await hasVectorTable(conn(), vectorIndexName(c)))) return new Set();
      const res = await conn().execute<{ key: number }>(
        sql`SELECT key FROM ${vectorTable(vectorIndexName(c))} WHERE key = ANY(${sql.param([...keys])}::integer[])`,
      );
      return new Set(res.rows.map((r) => Number(r.key)));
    },

    nearest: (c, query, limit, scope) =>
      ctx.transaction(async () => {
        if (limit <= 0 || !(await hasVectorTable(conn(), vectorIndexName(c)))) return [];
        const ef = Math.min(EF_SEARCH_MAX, Math.max(EF_SEARCH, Math.trunc(limit)));
        await conn().execute(sql.raw(`SET LOCAL hnsw.ef_search = ${ef}`));
        await conn().execute(sql.raw(`SET LOCAL hnsw.iterative_scan = relaxed_order`));
        const q = queryParam(c, query);
        const res = await conn().execute<{ id: number; score: number }>(sql`
          SELECT cv.id AS id, (1 - (v.embedding <=> ${q}))::float8 AS score
          FROM ${vectorTable(vectorIndexName(c))} v
          JOIN chunk_vectors cv ON cv.collection = ${c.name} AND cv.key = v.key
          JOIN chunks c ON c.job_id = cv.job_id AND c.chunk_id = cv.chunk_id
          WHERE true ${scopeSql(scope)}
          ORDER BY v.embedding <=> ${q}
          LIMIT ${limit}`);
        return res.rows.map((r) => ({ id: Number(r.id), score: Number(r.score) })).sort((a, b) => b.score - a.score);
      }),

    async similarities(c, query, keys) {
      if (keys.length === 0 || !(await hasVectorTable(conn(), vectorIndexName(c)))) return new Map();
      const res = await conn().execute<{ key: number; score: number }>(sql`
        SELECT key, (1 - (embedding <=> ${queryParam(c, query)}))::float8 AS score
        FROM ${vectorTable(vectorIndexName(c))} WHERE key = ANY(${sql.param([...keys])}::integer[])`);
      return new Map(res.rows.map((r) => [Number(r.key), Number(r.score)]));
    },

    async read(c, keys) {
      const out = new Map<number, Float32Array>();
      if (keys.length === 0 || !(await hasVectorTable(conn(), vectorIndexName(c)))) return out;
      // As text ('[0.1,…]'), which reads the same for vector and halfvec columns.
      const res = await conn().execute<{ key: number; embedding: string }>(
        sql`SELECT key, embedding::text AS embedding FROM ${vectorTable(vectorIndexName(c))} WHERE key = ANY(${sql.param([...keys])}::integer[])`,
      );
      for (const r of res.rows) out.set(Number(r.key), Float32Array.from(r.embedding.slice(1, -1).split(','), Number));
      return out;
    },

    async drop(name) {
      await conn().execute(sql`DROP TABLE IF EXISTS ${vectorTable(name)}`);
    },
  };
}

/**
 * pgvector's side of bench:search: the same vectors and queries as USearch, loaded into one PostgreSQL table,
 * indexed with HNSW (cosine), then searched one query at a time over a connection as the team server will
 * (latency therefore includes the loopback round trip and the text form of the query vector).
 *
 * `vector` indexes the f32 column; `halfvec` indexes its f16 cast (pgvector's half-precision indexing: the
 * table keeps f32, the index stores f16, as USearch's f16 collections do).
 */
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { BatchMatches } from 'usearch';
import { DIM } from './synthetic-vectors.js';

export type PgIndexType = 'vector' | 'halfvec';

export interface PgvectorOptions {
  types: PgIndexType[];
  m: number;
  efConstruction: number;
  efSearch: number[];
  buildWorkers: number;
  maintenanceWorkMem: string;
  queryCount: number;
  recallQueries: number;
  log: (line: string) => void;
}

export interface PgvectorRow {
  size: number;
  type: PgIndexType;
  efSearch: number;
  loadMs: number;
  buildMs: number;
  indexBytes: number;
  p50: number;
  p95: number;
  recall: number;
}

/** A query over a fraction of the rows: what iterative scans are for. */
export interface FilteredRow {
  size: number;
  type: PgIndexType;
  efSearch: number;
  iterativeScan: string;
  meanResults: number;
  p95: number;
  recall: number;
}

const TABLE = 'bench_search_items';
/** Rows with part = 0 are 1 in PARTS: the filtered queries search those only. */
const PARTS = 10;

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/** pgvector's text form; 9 significant digits give every f32 back exactly. */
const literal = (v: Float32Array): string => `[${Array.from(v, (x) => x.toPrecision(9)).join(',')}]`;

const column = (type: PgIndexType): string => (type === 'vector' ? 'embedding' : `(embedding::halfvec(${DIM}))`);
const param = (type: PgIndexType): string => (type === 'vector' ? `$1::vector(${DIM})` : `$1::halfvec(${DIM})`);

async function load(db: pg.Client, size: number, data: Float32Array): Promise<number> {
  await db.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await db.query(`CREATE TABLE ${TABLE} (id int NOT NULL, part smallint NOT NULL, embedding vector(${DIM}) NOT NULL)`);
  const t = performance.now();
  const step = 1000;
  for (let from = 0; from < size; from += step) {
    const ids: number[] = [];
    const texts: string[] = [];
    for (let i = from; i < Math.min(size, from + step); i++) {
      ids.push(i);
      texts.push(literal(data.subarray(i * DIM, (i + 1) * DIM)));
    }
    await db.query(
      `INSERT INTO ${TABLE} (id, part, embedding) SELECT id, id % ${PARTS}, e::vector(${DIM}) FROM unnest($1::int[], $2::text[]) AS u(id, e)`,
      [ids, texts],
    );
    if ((from / step) % 20 === 19 || from + step >= size)
      process.stderr.write(
        `\r  pgvector ${size}: loaded ${Math.min(size, from + step)} (${Math.round(performance.now() - t)} ms)`,
      );
  }
  process.stderr.write('\n');
  await db.query(`VACUUM ANALYZE ${TABLE}`);
  return performance.now() - t;
}

/** The exact top 10 among rows with part = 0, by cosine over the f32 vectors (all unit length). */
function filteredTruth(data: Float32Array, queries: Float32Array, count: number): number[][] {
  const out: number[][] = [];
  for (let q = 0; q < count; q++) {
    const query = queries.subarray(q * DIM, (q + 1) * DIM);
    const best: { id: number; dot: number }[] = [];
    for (let id = 0; id < data.length / DIM; id += PARTS) {
      let dot = 0;
      for (let d = 0; d < DIM; d++) dot += query[d]! * data[id * DIM + d]!;
      if (best.length < 10 || dot > best[9]!.dot) {
        best.push({ id, dot });
        best.sort((a, b) => b.dot - a.dot);
        if (best.length > 10) best.pop();
      }
    }
    out.push(best.map((b) => b.id));
  }
  return out;
}

async function timed(
  db: pg.Client,
  name: string,
  sql: string,
  texts: string[],
  count: number,
): Promise<{ sorted: number[]; results: number }> {
  const lat: number[] = [];
  let results = 0;
  for (let q = 0; q < count; q++) {
    const start = performance.now();
    const r = await db.query({ name, text: sql, values: [texts[q % texts.length]] });
    lat.push(performance.now() - start);
    results += r.rowCount ?? 0;
  }
  return { sorted: lat.sort((a, b) => a - b), results };
}

async function recallOf(
  db: pg.Client,
  name: string,
  sql: string,
  texts: string[],
  truth: (q: number) => Set<number>,
  count: number,
): Promise<number> {
  let found = 0;
  for (let q = 0; q < count; q++) {
    const r = await db.query<{ id: number }>({ name, text: sql, values: [texts[q]] });
    const exact = truth(q);
    found += r.rows.filter((row) => exact.has(row.id)).length;
  }
  return found / (count * 10);
}

/** Loads `data`, then builds and searches one index per type; the table is dropped at the end. */
export async function runPgvector(
  db: pg.Client,
  size: number,
  data: Float32Array,
  queries: Float32Array,
  truth: BatchMatches,
  opts: PgvectorOptions,
): Promise<{ rows: PgvectorRow[]; filtered: FilteredRow[] }> {
  const notices: string[] = [];
  const onNotice = (n: { message?: string }): void => void notices.push(n.message ?? '');
  db.on('notice', onNotice);
  const rows: PgvectorRow[] = [];
  const filtered: FilteredRow[] = [];
  try {
    const loadMs = await load(db, size, data);
    const nq = Math.max(opts.queryCount, opts.recallQueries);
    const texts = Array.from({ length: Math.min(nq, queries.length / DIM) }, (_, q) =>
      literal(queries.subarray(q * DIM, (q + 1) * DIM)),
    );
    const exact = (q: number): Set<number> => new Set(Array.from(truth.get(q).keys, Number));
    const partTruth = filteredTruth(data, queries, opts.recallQueries);
    for (const type of opts.types) {
      await db.query(`DROP INDEX IF EXISTS ${TABLE}_hnsw`);
      await db.query(`SET maintenance_work_mem = '${opts.maintenanceWorkMem}'`);
      await db.query(`SET max_parallel_maintenance_workers = ${opts.buildWorkers}`);
      notices.length = 0;
      const t = performance.now();
      await db.query(
        `CREATE INDEX ${TABLE}_hnsw ON ${TABLE} USING hnsw (${column(type)} ${type}_cosine_ops) WITH (m = ${opts.m}, ef_construction = ${opts.efConstruction})`,
      );
      const buildMs = performance.now() - t;
      for (const n of notices) opts.log(`  pgvector ${type} ${size} build notice: ${n}`);
      const indexBytes = Number(
        (await db.query<{ b: string }>(`SELECT pg_relation_size('${TABLE}_hnsw') AS b`)).rows[0]?.b,
      );
      process.stderr.write(`  pgvector ${type} ${size}: index built (${Math.round(buildMs)} ms)\n`);

      const sql = `SELECT id FROM ${TABLE} ORDER BY ${column(type)} <=> ${param(type)} LIMIT 10`;
      const plan = (await db.query(`EXPLAIN ${sql.replace('$1', `'${texts[0]}'`)}`)).rows
        .map((r) => String(r['QUERY PLAN']))
        .join('\n');
      if (!plan.includes(`Index Scan using ${TABLE}_hnsw`))
        throw new Error(`pgvector: the query does not use the HNSW index:\n${plan}`);
      await db.query('SET hnsw.iterative_scan = off');
      for (const ef of opts.efSearch) {
        await db.query(`SET hnsw.ef_search = ${ef}`);
        const name = `knn-${type}`;
        await timed(db, name, sql, texts, opts.queryCount); // warm-up: the index's pages into shared buffers
        const { sorted } = await timed(db, name, sql, texts, opts.queryCount);
        const recall = await recallOf(db, name, sql, texts, exact, opts.recallQueries);
        rows.push({
          size,
          type,
          efSearch: ef,
          loadMs,
          buildMs,
          indexBytes,
          p50: percentile(sorted, 0.5),
          p95: percentile(sorted, 0.95),
          recall,
        });
      }

      // One row in PARTS matches: without an iterative scan the index hands over ef_search candidates and
      // the filter keeps about 1 in PARTS of them, so fewer than 10 come back.
      const fsql = `SELECT id FROM ${TABLE} WHERE part = 0 ORDER BY ${column(type)} <=> ${param(type)} LIMIT 10`;
      const ef = opts.efSearch[0]!;
      await db.query(`SET hnsw.ef_search = ${ef}`);
      for (const mode of ['off', 'relaxed_order']) {
        await db.query(`SET hnsw.iterative_scan = ${mode}`);
        const name = `filtered-${type}-${mode}`;
        await timed(db, name, fsql, texts, opts.recallQueries);
        const { sorted, results } = await timed(db, name, fsql, texts, opts.recallQueries);
        const recall = await recallOf(db, name, fsql, texts, (q) => new Set(partTruth[q]), opts.recallQueries);
        filtered.push({
          size,
          type,
          efSearch: ef,
          iterativeScan: mode,
          meanResults: results / opts.recallQueries,
          p95: percentile(sorted, 0.95),
          recall,
        });
      }
      await db.query('SET hnsw.iterative_scan = off');
    }
  } finally {
    db.off('notice', onNotice);
    await db.query(`DROP TABLE IF EXISTS ${TABLE}`);
  }
  return { rows, filtered };
}

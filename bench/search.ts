/**
 * Vector search benchmark: p50/p95 query latency and recall@10 against exact brute force, index build
 * time, file size and load/view time, for synthetic 384-d unit vectors through server/store/usearch/vector-index.
 *
 * The vectors are clustered (topic centres + noise, queries from the same topics) because uniformly random
 * 384-d vectors have no neighbourhoods at all: every ANN index scores badly there (HNSW ~0.26 recall@10 at
 * 20k) and real embeddings do not look like that. Ground truth is USearch's exactSearch (a brute-force
 * scan over the f32 vectors, not the index); test/core/vector-index.test.ts checks recall with a plain JS scan.
 *
 * Each built index is saved once, then reopened with every --ef (expansion_search: candidates kept per
 * query; not stored in the file) to trade latency for recall.
 *
 * The defaults measure what the product ships: f16 collections searched with ef 128
 * (server/store/usearch/collection-indexes.ts), beside 64 and 256.
 *
 * With --backends usearch,pgvector the same vectors and queries also go through PostgreSQL's pgvector (an
 * HNSW index per --pg-types, searched over a loopback connection with each --pg-ef as hnsw.ef_search;
 * bench/lib/pgvector-search.ts), on LECTERN_DATABASE_URL or else on a server of its own started by
 * scripts/team-services.sh; both backends are then printed side by side.
 *
 * Usage: tsx bench/search.ts [--sizes 100000,1000000] [--quant f16] [--ef 64,128,256] [--queries 1000]
 *        [--recall-queries 200] [--threads 2] [--json FILE]
 *        [--backends usearch,pgvector] [--pg-types vector,halfvec] [--pg-ef 40,100,200] [--pg-m 16]
 *        [--pg-ef-construction 128] [--pg-build-workers 2] [--pg-maintenance-work-mem 3000MB]
 *        [--pg-shared-buffers 4000MB]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import usearch, { type BatchMatches } from 'usearch';
import { openVectorIndex, type VectorQuantization } from '../server/store/usearch/vector-index.js';
import { openBenchDatabase, type BenchDatabase } from './lib/bench-database.js';
import { ms, num, table } from './lib/format.js';
import { runPgvector, type FilteredRow, type PgIndexType, type PgvectorRow } from './lib/pgvector-search.js';
import { clusteredVectors, DIM, TOPICS } from './lib/synthetic-vectors.js';

const P95_GOAL_MS = 20;
const RECALL_GOAL = 0.95;

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    quant: { type: 'string', default: 'f16' },
    queries: { type: 'string', default: '1000' },
    'recall-queries': { type: 'string', default: '200' },
    threads: { type: 'string', default: '2' },
    ef: { type: 'string', default: '64,128,256' },
    json: { type: 'string' },
    backends: { type: 'string', default: 'usearch' },
    'pg-types': { type: 'string', default: 'vector,halfvec' },
    'pg-ef': { type: 'string', default: '40,100,200' },
    'pg-m': { type: 'string', default: '16' },
    'pg-ef-construction': { type: 'string', default: '128' },
    'pg-build-workers': { type: 'string', default: '2' },
    'pg-maintenance-work-mem': { type: 'string' },
    'pg-shared-buffers': { type: 'string' },
  },
});
const sizes = (args.sizes ?? '').split(',').map(Number);
const quants = (args.quant ?? '').split(',') as VectorQuantization[];
const queryCount = Number(args.queries);
const recallQueries = Number(args['recall-queries']);
const threads = Number(args.threads);
const efs = (args.ef ?? '').split(',').map(Number);
const backends = new Set((args.backends ?? '').split(','));
const useUsearch = backends.has('usearch');
const usePgvector = backends.has('pgvector');
// HNSW builds slow down many times once the graph outgrows maintenance_work_mem (pgvector says so in a
// notice): ~3 KB a 384-d f32 vector with m 16 leaves room. shared_buffers holds the index and the rows a
// query reads, as a server sized for its collection would.
const largest = Math.max(...sizes);
const maintenanceWorkMem = args['pg-maintenance-work-mem'] ?? `${Math.max(256, Math.ceil((largest * 3) / 1024))}MB`;
const sharedBuffers = args['pg-shared-buffers'] ?? `${Math.max(256, Math.ceil((largest * 4) / 1024))}MB`;

const log = (line = ''): void => void process.stdout.write(`${line}\n`);

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

interface Row {
  size: number;
  quantization: VectorQuantization;
  ef: number;
  buildMs: number;
  fileBytes: number;
  loadMs: number;
  viewMs: number;
  p50: number;
  p95: number;
  viewP95: number;
  recall: number;
}

function runOne(
  size: number,
  quantization: VectorQuantization,
  data: Float32Array,
  queries: Float32Array,
  truth: BatchMatches,
  dir: string,
): Row[] {
  const file = path.join(dir, `bench-${size}-${quantization}.usearch`);
  const opts = { path: file, dimensions: DIM, metric: 'cos' as const, quantization, threads };
  const idx = openVectorIndex(opts);
  const keys = Array.from({ length: size }, (_, i) => BigInt(i));
  let t = performance.now();
  const step = 50_000;
  for (let from = 0; from < size; from += step) {
    idx.add(keys.slice(from, from + step), data.subarray(from * DIM, Math.min(size, from + step) * DIM));
    process.stderr.write(
      `\r  ${quantization} ${size}: added ${Math.min(size, from + step)} (${ms(performance.now() - t)})`,
    );
  }
  process.stderr.write('\n');
  const buildMs = performance.now() - t;
  idx.save();
  const fileBytes = statSync(file).size;

  const latencies = (index: ReturnType<typeof openVectorIndex>): number[] => {
    const out: number[] = [];
    const nq = queries.length / DIM;
    for (let q = 0; q < queryCount; q++) {
      const query = queries.subarray((q % nq) * DIM, ((q % nq) + 1) * DIM);
      const start = performance.now();
      index.search(query, 10);
      out.push(performance.now() - start);
    }
    return out.sort((a, b) => a - b);
  };
  const rows: Row[] = [];
  for (const ef of efs) {
    t = performance.now();
    const loaded = openVectorIndex({ ...opts, threads: 1, expansionSearch: ef });
    const loadMs = performance.now() - t;
    t = performance.now();
    const viewed = openVectorIndex({ ...opts, threads: 1, expansionSearch: ef, view: true });
    const viewMs = performance.now() - t;
    const lat = latencies(loaded);
    const viewLat = latencies(viewed);
    let found = 0;
    for (let q = 0; q < recallQueries; q++) {
      const exact = new Set(truth.get(q).keys);
      found += loaded.search(queries.subarray(q * DIM, (q + 1) * DIM), 10).keys.filter((k) => exact.has(k)).length;
    }
    rows.push({
      size,
      quantization,
      ef,
      buildMs,
      fileBytes,
      loadMs,
      viewMs,
      p50: percentile(lat, 0.5),
      p95: percentile(lat, 0.95),
      viewP95: percentile(viewLat, 0.95),
      recall: found / (recallQueries * 10),
    });
  }
  rmSync(file, { force: true });
  return rows;
}

const cpus = os.cpus();
log(
  `# bench:search — ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}`,
);
log(
  `vectors: ${DIM}-d unit, ${TOPICS} topic centres + noise; ${queryCount} timed queries (k=10, 1 thread); recall@10 on ${recallQueries} queries; build with ${threads} threads`,
);
const dir = mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-search-'));
const rows: Row[] = [];
const pgRows: PgvectorRow[] = [];
const pgFiltered: FilteredRow[] = [];
let database: BenchDatabase | undefined;
try {
  if (usePgvector) {
    database = await openBenchDatabase({ sharedBuffers });
    const version = await database.setting('server_version');
    const db = await database.connect();
    const ext = (await db.query<{ extversion: string }>("SELECT extversion FROM pg_extension WHERE extname = 'vector'"))
      .rows[0]?.extversion;
    await db.end();
    log(
      `pgvector ${ext} on PostgreSQL ${version} (${database.origin}): shared_buffers ${await database.setting('shared_buffers')}, ` +
        `maintenance_work_mem ${maintenanceWorkMem}, ${args['pg-build-workers']} parallel build workers, HNSW m ${args['pg-m']} ef_construction ${args['pg-ef-construction']}; ` +
        `queries over one loopback connection; hnsw.iterative_scan off (its default) except where shown`,
    );
  }
  const centres = clusteredVectors(null, TOPICS, 1, 1);
  const queries = clusteredVectors(centres, Math.max(queryCount, recallQueries), 99, 0.5);
  for (const size of sizes) {
    const data = clusteredVectors(centres, size, 7 + size, 0.5);
    const t = performance.now();
    const truth = usearch.exactSearch(
      data,
      queries.subarray(0, recallQueries * DIM),
      DIM,
      10,
      usearch.MetricKind.Cos,
      threads,
    ) as BatchMatches;
    log(`exact brute force for ${recallQueries} queries over ${size}: ${ms(performance.now() - t)}`);
    if (useUsearch) for (const q of quants) rows.push(...runOne(size, q, data, queries, truth, dir));
    if (database) {
      const db = await database.connect();
      try {
        const r = await runPgvector(db, size, data, queries, truth, {
          types: (args['pg-types'] ?? '').split(',') as PgIndexType[],
          m: Number(args['pg-m']),
          efConstruction: Number(args['pg-ef-construction']),
          efSearch: (args['pg-ef'] ?? '').split(',').map(Number),
          buildWorkers: Number(args['pg-build-workers']),
          maintenanceWorkMem,
          queryCount,
          recallQueries,
          log,
        });
        pgRows.push(...r.rows);
        pgFiltered.push(...r.filtered);
      } finally {
        await db.end();
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await database?.close();
}

if (useUsearch) {
  log();
  log(
    table(
      ['vectors', 'quant', 'ef', 'build', 'file MiB', 'load', 'view', 'p50 ms', 'p95 ms', 'p95 view ms', 'recall@10'],
      rows.map((r) => [
        String(r.size),
        r.quantization,
        String(r.ef),
        ms(r.buildMs),
        num(r.fileBytes / 2 ** 20),
        ms(r.loadMs),
        ms(r.viewMs),
        num(r.p50, 2),
        num(r.p95, 2),
        num(r.viewP95, 2),
        num(r.recall, 3),
      ]),
      new Set([0, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    ),
  );
}
interface Side {
  backend: string;
  size: number;
  index: string;
  ef: number;
  buildMs: number;
  bytes: number;
  p50: number;
  p95: number;
  recall: number;
}
const sides: Side[] = [
  ...rows.map((r) => ({
    backend: 'usearch',
    size: r.size,
    index: r.quantization,
    ef: r.ef,
    buildMs: r.buildMs,
    bytes: r.fileBytes,
    p50: r.p50,
    p95: r.p95,
    recall: r.recall,
  })),
  ...pgRows.map((r) => ({
    backend: 'pgvector',
    size: r.size,
    index: r.type,
    ef: r.efSearch,
    buildMs: r.buildMs,
    bytes: r.indexBytes,
    p50: r.p50,
    p95: r.p95,
    recall: r.recall,
  })),
].sort((a, b) => a.size - b.size);
if (usePgvector) {
  log();
  log('side by side (same vectors and queries; ef = expansion_search for usearch, hnsw.ef_search for pgvector):');
  log(
    table(
      ['vectors', 'backend', 'index', 'ef', 'build', 'index MiB', 'p50 ms', 'p95 ms', 'recall@10'],
      sides.map((r) => [
        String(r.size),
        r.backend,
        r.index,
        String(r.ef),
        ms(r.buildMs),
        num(r.bytes / 2 ** 20),
        num(r.p50, 2),
        num(r.p95, 2),
        num(r.recall, 3),
      ]),
      new Set([0, 3, 4, 5, 6, 7, 8]),
    ),
  );
  log(
    `pgvector loads (${pgRows.length ? 'one INSERT of 1,000 rows at a time' : '-'}): ${[...new Set(pgRows.map((r) => `${r.size} in ${ms(r.loadMs)}`))].join(', ')}`,
  );
  log();
  log('pgvector, filtered to 1 row in 10 (WHERE part = 0), recall against the exact top 10 of those rows:');
  log(
    table(
      ['vectors', 'index', 'ef_search', 'iterative_scan', 'rows back', 'p95 ms', 'recall@10'],
      pgFiltered.map((r) => [
        String(r.size),
        r.type,
        String(r.efSearch),
        r.iterativeScan,
        num(r.meanResults, 1),
        num(r.p95, 2),
        num(r.recall, 3),
      ]),
      new Set([0, 2, 4, 5, 6]),
    ),
  );
  log();
  for (const size of sizes) {
    for (const backend of ['usearch', 'pgvector']) {
      const best = sides
        .filter((r) => r.size === size && r.backend === backend && r.recall >= RECALL_GOAL)
        .sort((a, b) => a.p95 - b.p95)[0];
      if (sides.some((r) => r.size === size && r.backend === backend)) {
        log(
          `${size} ${backend}: ${best ? `fastest with recall@10 >= ${RECALL_GOAL}: ${best.index} ef ${best.ef}, p95 ${num(best.p95, 2)} ms` : `no setting reaches recall@10 ${RECALL_GOAL}`}`,
        );
      }
    }
  }
}
for (const r of sides.filter((x) => x.size >= 1_000_000)) {
  log(
    `goal at ${r.size} ${r.backend} ${r.index} ef ${r.ef}: p95 < ${P95_GOAL_MS} ms ${r.p95 < P95_GOAL_MS ? 'PASS' : 'FAIL'}; recall@10 >= ${RECALL_GOAL} ${r.recall >= RECALL_GOAL ? 'PASS' : 'FAIL'}`,
  );
}
if (args.json)
  writeFileSync(
    args.json,
    JSON.stringify(usePgvector ? { usearch: rows, pgvector: pgRows, pgvectorFiltered: pgFiltered } : rows, null, 2),
  );

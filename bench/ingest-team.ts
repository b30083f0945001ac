/**
 * Team server ingest benchmark: what reading documents through the shared task queue costs.
 *
 * 1. The same files, one at a time, on the desktop (one `lectern serve`, SQLite, its own pool) and on a team
 *    server on the same cores (an API node with `--no-worker` and one `lectern worker` with the same threads,
 *    on PostgreSQL): each file's upload-to-ready_for_review time, the two alternating file by file so that the
 *    machine's load falls on both alike. Goal: the team server within 1.15x of the desktop.
 * 2. A batch of documents uploaded at once to the team server, read by one worker process with T threads, then
 *    by T worker processes of one thread: the queue's cost per task when processes, not threads, share it.
 *
 * PostgreSQL with pgvector comes from scripts/team-services.sh in a temp folder (removed at the end); every
 * process is the real CLI. Usage:
 *   tsx bench/ingest-team.ts [--pages 500] [--fixtures DIR] [--repeat 5] [--batch 2] [--threads N]
 * Five runs a file are the measure: the team's extra time is a fixed few ms a file, and with three the ratio wanders.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeLongPdf, makeStructuredPdf } from '../test/helpers/make-pdf.js';
import { startTeamServices } from '../test/helpers/team-services-script.js';
import { freshDatabase } from './lib/bench-stores.js';
import { ms, num, table } from './lib/format.js';
import { ingestFile, type IngestResult } from './lib/ingest-job.js';
import {
  readTimes,
  startServer,
  startWorker,
  waitForWarmWorkers,
  type ServerHandle,
  type WorkerHandle,
} from './lib/server.js';
import { median } from './lib/stats.js';

const TEAM_RATIO_GOAL = 1.15;
const log = (line = ''): void => void process.stdout.write(`${line}\n`);
const loadavg = (): string =>
  os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

/** Reads a file; a file that does not reach ready_for_review stops the bench. */
async function ingested(server: ServerHandle, file: string): Promise<IngestResult> {
  const r = await ingestFile(server, file);
  if (r.status !== 'ready_for_review') throw new Error(`${path.basename(file)}: ${r.status} ${r.error ?? ''}`);
  return r;
}
const timed = async (server: ServerHandle, file: string): Promise<number> => (await ingested(server, file)).wallMs;

/**
 * Where a reading's time went, as the client saw it: queued (to first seen processing) / pages / after the pages;
 * then, as the node that read it logged: its pages / its save.
 */
const phases = (r: IngestResult, logFiles: string[]): string => {
  const seen = r.phases
    ? [r.phases.queuedMs, r.phases.pagesMs, r.phases.afterPagesMs].map((v) => Math.round(v)).join('/')
    : '-';
  const read = logFiles.map((f) => readTimes(f, r.job.job_id)).find((t) => t !== null);
  return read ? `${seen}; read ${read.readMs}, save ${read.saveMs}` : seen;
};

/** Uploads every file at once and waits for all of them: the batch's wall time. */
async function batch(server: ServerHandle, files: string[]): Promise<number> {
  const started = performance.now();
  await Promise.all(files.map((f) => timed(server, f)));
  return performance.now() - started;
}

/** A team server on `databaseUrl`: an API node that queues only, and `workers` worker processes of `threads` each. */
async function startTeam(root: string, databaseUrl: string, dataDir: string, workers: number, threads: number) {
  const db = ['--database-url', databaseUrl];
  const api = await startServer(root, { dataDir, args: [...db, '--no-worker'] });
  const nodes: WorkerHandle[] = [];
  try {
    for (let i = 0; i < workers; i++)
      nodes.push(await startWorker(root, { dataDir, args: [...db, '--workers', String(threads)] }));
  } catch (err) {
    await Promise.all([api.stop(), ...nodes.map((w) => w.stop())]);
    throw err;
  }
  return { api, nodes, stop: () => Promise.all([api.stop(), ...nodes.map((w) => w.stop())]).then(() => undefined) };
}

async function main(): Promise<number> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { values } = parseArgs({
    options: {
      pages: { type: 'string', default: '500' },
      fixtures: { type: 'string', default: path.resolve(root, '../shared/fixtures/pdfs') },
      repeat: { type: 'string', default: '5' },
      batch: { type: 'string', default: '2' },
      threads: { type: 'string', default: String(os.cpus().length) },
    },
  });
  const repeat = Math.max(1, Number(values.repeat));
  const threads = Math.max(1, Number(values.threads));
  log('# Lectern team server ingest benchmark');
  log(
    `date: ${new Date().toISOString()}; ${os.cpus().length} cores, Node ${process.version}; load average ${loadavg()}`,
  );
  if (!existsSync(path.join(root, 'bin/lectern.js')))
    throw new Error('bin/lectern.js is missing: build first (node scripts/build-node.mjs)');

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-team-'));
  const services = await startTeamServices();
  try {
    const warmup = path.join(tmp, 'warmup.pdf');
    writeFileSync(warmup, await makeStructuredPdf());
    const long = path.join(tmp, `generated-${values.pages}-pages.pdf`);
    writeFileSync(long, await makeLongPdf(Number(values.pages)));
    const fixtures = existsSync(values.fixtures)
      ? readdirSync(values.fixtures)
          .filter((f) => f.toLowerCase().endsWith('.pdf'))
          .sort()
          .map((f) => path.join(values.fixtures, f))
      : [];
    const files = [...fixtures, long];
    const url = services.env.LECTERN_DATABASE_URL;

    log(`\n## 1. One file at a time: the desktop against an API node and one worker, ${threads} thread(s) each`);
    const desktop = await startServer(root, { args: ['--workers', String(threads)] });
    const team = await startTeam(
      root,
      await freshDatabase(url, 'bench_ingest_team'),
      path.join(tmp, 'team-data'),
      1,
      threads,
    );
    const rows: string[][] = [];
    let desktopSum = 0;
    let teamSum = 0;
    try {
      await waitForWarmWorkers(desktop);
      // Both pools are warm by now; the first document through each side is still left out.
      await Promise.all([timed(desktop, warmup), timed(team.api, warmup)]);
      for (const file of files) {
        const d: IngestResult[] = [];
        const t: IngestResult[] = [];
        for (let i = 0; i < repeat; i++) {
          d.push(await ingested(desktop, file));
          t.push(await ingested(team.api, file));
        }
        const [dm, tm] = [median(d.map((r) => r.wallMs)), median(t.map((r) => r.wallMs))];
        desktopSum += dm;
        teamSum += tm;
        rows.push([path.basename(file), ms(dm), ms(tm), `${num(tm / dm, 2)}x`]);
        const runs = (rs: IngestResult[], logs: string[]) =>
          rs.map((r) => `${ms(r.wallMs)} (${phases(r, logs)})`).join(', ');
        log(
          `  ${path.basename(file)}: desktop ${runs(d, [desktop.logFile])}; team ${runs(
            t,
            team.nodes.map((n) => n.logFile),
          )}`,
        );
      }
    } finally {
      await Promise.all([desktop.stop(), team.stop()]);
    }
    const ratio = teamSum / desktopSum;
    rows.push(['TOTAL (medians)', ms(desktopSum), ms(teamSum), `${num(ratio, 2)}x`]);
    log(
      "  (each run: upload to ready_for_review, and in brackets queued / pages / after the pages as the client saw them, then the reading node's own pages and save, ms)",
    );
    log(`\n${table(['file', 'desktop', 'team (API node + worker)', 'ratio'], rows, new Set([1, 2, 3]))}`);
    log(
      `goal: the team server within ${TEAM_RATIO_GOAL}x of the desktop, one file at a time: ${ratio <= TEAM_RATIO_GOAL ? 'PASS' : 'FAIL'} (${num(ratio, 2)}x)`,
    );

    const many = Array.from({ length: Math.max(1, Number(values.batch)) }, () => files).flat();
    log(
      `\n## 2. ${many.length} documents uploaded at once: one worker process of ${threads} threads, then ${threads} processes of one`,
    );
    const batches: Record<string, number[]> = {};
    for (const [label, workers, each] of [
      [`1 worker x ${threads} threads`, 1, threads],
      [`${threads} workers x 1 thread`, threads, 1],
    ] as const) {
      const side = await startTeam(
        root,
        await freshDatabase(url, 'bench_ingest_batch'),
        path.join(tmp, `batch-${workers}`),
        workers,
        each,
      );
      try {
        await Promise.all(Array.from({ length: workers }, () => timed(side.api, warmup)));
        const runs: number[] = [];
        for (let i = 0; i < repeat; i++) runs.push(await batch(side.api, many));
        batches[label] = runs;
        log(`  ${label}: ${runs.map(ms).join(', ')} (load ${loadavg()})`);
      } finally {
        await side.stop();
      }
    }
    const [one, several] = Object.values(batches).map(median) as [number, number];
    log(
      `\n${table(
        ['workers', 'batch, median', 'documents/s'],
        Object.entries(batches).map(([k, v]) => [k, ms(median(v)), num(many.length / (median(v) / 1000), 2)]),
        new Set([1, 2]),
      )}`,
    );
    // Not the queue's cost alone: a PDF that two threads of one process read together is one thread's in a process of one.
    log(
      `${threads} processes of one thread against one of ${threads}: ${num(several / one, 2)}x the batch's time (${ms((several - one) / many.length)} more a document)`,
    );
    log(`load average at the end: ${loadavg()}`);
    return 0;
  } finally {
    await services.stop();
    rmSync(services.dir, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => void (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(
      `bench:ingest-team failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);

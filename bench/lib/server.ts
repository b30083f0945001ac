/** Runs `lectern serve` as a child process over a temporary data dir, the way a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { peakMemory, type PeakMemory } from './proc.js';

export interface ServerHandle {
  baseUrl: string;
  apiKey: string;
  pid: number;
  logFile: string;
  /** Peak memory so far (VmHWM); read it before stop(). */
  memory(): PeakMemory;
  /** The last lines the server wrote to stdout/stderr. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** How long a job's pages and its save took on the node that read it, from its 'job ready for review' log line. */
export function readTimes(logFile: string, jobId: string): { readMs: number; saveMs: number } | null {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    if (!line.includes(jobId) || !line.includes('job ready for review')) continue;
    try {
      const l = JSON.parse(line) as { read_ms?: number; save_ms?: number };
      if (typeof l.read_ms === 'number' && typeof l.save_ms === 'number')
        return { readMs: l.read_ms, saveMs: l.save_ms };
    } catch {
      // not a log line of ours
    }
  }
  return null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Waits until GET /health says every worker thread has finished its start-up warm-up (the state of a
 * server that has been up for a few seconds); returns how long that took.
 */
export async function waitForWarmWorkers(server: ServerHandle, timeoutMs = 120_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const res = await fetch(`${server.baseUrl}/health`, { headers: { 'X-API-Key': server.apiKey } });
    const { workers } = (await res.json()) as { workers?: { threads: number; warm: number } };
    if (!workers || workers.warm >= workers.threads) return performance.now() - started;
    await sleep(50);
  }
  throw new Error(`worker threads still warming up after ${timeoutMs} ms`);
}

/** The node flags on the `lectern` launcher's first line (`#!/usr/bin/env -S node FLAGS`), so the server runs as a user's does. */
function launcherNodeFlags(repoRoot: string): string[] {
  const first = readFileSync(path.join(repoRoot, 'bin', 'lectern.js'), 'utf8').split('\n', 1)[0] ?? '';
  return (/^#!\S*env -S node(.*)$/.exec(first)?.[1] ?? '').split(/\s+/).filter(Boolean);
}

export interface StartOptions {
  startTimeoutMs?: number;
  /** More arguments for the command (`--no-worker`, `--workers 1`, `--database-url …`). */
  args?: string[];
  /** A data folder of the caller's (kept); else one in the temporary folder, removed at stop. */
  dataDir?: string;
  /** The key to use; a random one when absent. Nodes of one team server share theirs. */
  apiKey?: string;
}

/** Spawns `node [launcher flags] bin/lectern.js COMMAND …` the way a user's shell would, its output in a log file. */
function spawnLectern(repoRoot: string, command: string[], opts: StartOptions) {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-lectern-'));
  const dataDir = opts.dataDir ?? path.join(work, 'data');
  const logFile = path.join(work, 'server.log');
  const apiKey = opts.apiKey ?? randomBytes(18).toString('hex');
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") reach the server's node, which NODE_OPTIONS cannot.
    // BENCH_NODE_ARGS come after the launcher's flags and win over them (e.g. --v8-pool-size=4, Node's default).
    [
      ...launcherNodeFlags(repoRoot),
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'bin/lectern.js',
      ...command,
      '--data-dir',
      dataDir,
      ...(opts.args ?? []),
    ],
    { cwd: repoRoot, env: { ...process.env, SERVICE_API_KEY: apiKey }, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const logTail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timedOut = await Promise.race([exited(child).then(() => false), sleep(10_000).then(() => true)]);
      if (timedOut) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    rmSync(work, { recursive: true, force: true });
  };
  return { child, apiKey, logFile, logTail, stop };
}

/** A process that only runs tasks (`lectern worker`): no HTTP; it is ready once its log says its threads are warm. */
export interface WorkerHandle {
  pid: number;
  logFile: string;
  memory(): PeakMemory;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** Starts `lectern worker` with `opts.args` (its database at least). */
export async function startWorker(repoRoot: string, opts: StartOptions): Promise<WorkerHandle> {
  const { child, logFile, logTail, stop } = spawnLectern(repoRoot, ['worker'], opts);
  const pid = child.pid;
  if (pid === undefined) {
    await stop();
    throw new Error('could not spawn the worker');
  }
  // Timed like a desktop server whose threads are warm (waitForWarmWorkers); a worker refused at start (no
  // database, a wrong one) exits at once: say so here, not as a bench that never ends.
  for (const end = performance.now() + (opts.startTimeoutMs ?? 120_000); ; await sleep(100)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = logTail();
      await stop();
      throw new Error(`worker exited during start-up (code ${child.exitCode}):\n${tail}`);
    }
    if (readFileSync(logFile, 'utf8').includes('worker threads warm')) break;
    if (performance.now() > end) {
      const tail = logTail();
      await stop();
      throw new Error(`worker threads still warming up after start-up:\n${tail}`);
    }
  }
  return { pid, logFile, memory: () => peakMemory(pid), logTail, stop };
}

/** Starts `node [launcher flags] bin/lectern.js serve` and resolves once GET /health answers 200. */
export async function startServer(repoRoot: string, opts: StartOptions = {}): Promise<ServerHandle> {
  const port = await freePort();
  const { child, apiKey, logFile, logTail, stop } = spawnLectern(
    repoRoot,
    ['serve', '--port', String(port), '--host', '127.0.0.1'],
    opts,
  );
  const pid = child.pid;
  const baseUrl = `http://127.0.0.1:${port}`;
  if (pid === undefined) {
    await stop();
    throw new Error('could not spawn the server');
  }
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = logTail();
      await stop();
      throw new Error(`server exited during start-up (code ${child.exitCode}, signal ${child.signalCode}):\n${tail}`);
    }
    try {
      const res = await fetch(`${baseUrl}/health`, { headers: { 'X-API-Key': apiKey } });
      await res.arrayBuffer();
      if (res.status === 200) {
        return { baseUrl, apiKey, pid, logFile, memory: () => peakMemory(pid), logTail, stop };
      }
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  const tail = logTail();
  await stop();
  throw new Error(`server did not answer GET /health with 200 within the start-up timeout:\n${tail}`);
}

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

/** Starts `node [launcher flags] bin/lectern.js serve` and resolves once GET /health answers 200. */
export async function startServer(repoRoot: string, opts: { startTimeoutMs?: number } = {}): Promise<ServerHandle> {
  const work = mkdtempSync(path.join(tmpdir(), 'bench-lectern-'));
  const dataDir = path.join(work, 'data');
  const logFile = path.join(work, 'server.log');
  const apiKey = randomBytes(18).toString('hex');
  const port = await freePort();
  const logFd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") reach the server's node, which NODE_OPTIONS cannot.
    // BENCH_NODE_ARGS come after the launcher's flags and win over them (e.g. --v8-pool-size=4, Node's default).
    [...launcherNodeFlags(repoRoot), ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'bin/lectern.js', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
    { cwd: repoRoot, env: { ...process.env, SERVICE_API_KEY: apiKey }, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const pid = child.pid;
  const baseUrl = `http://127.0.0.1:${port}`;
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

/**
 * The real server as a child process (`lectern serve`, the built dist/cli.js), for what only a process of
 * its own can show: its peak RSS (worker threads included, read from /proc), and surviving or dying of a
 * signal (kill -9). Tests that need neither use startServer (test/helpers/app.ts) in their own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, type ServerClient, serverClient, tempDir } from './app.js';
import { storeEnvFor, TEST_TASK_LEASE_MS } from './test-database.js';

/** Driven over HTTP as a server in the test's own process is (ServerClient). */
export interface ChildServer extends ServerClient {
  readonly pid: number;
  readonly url: string;
  readonly key: string;
  readonly dataDir: string;
  /** Every line the server logged (pino JSON), parsed. */
  readonly logs: Record<string, unknown>[];
  /** Highest resident set size (MB) since the start or the last `resetPeak` (VmHWM). */
  peakRssMb(): number;
  rssMb(): number;
  /** Starts a new high-water mark at the current RSS (/proc/PID/clear_refs). */
  resetPeak(): void;
  /** Sends the signal and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Null while the process runs; once it ended, how (code or signal) with the end of what it wrote to stderr
   * and its last warnings and errors: what a test that finds the server gone reports.
   */
  deathNote(): string | null;
}

/** How much of the server's stderr is kept for a death note. */
const STDERR_KEPT = 16_384;

function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * The address a starting `lectern serve` logs once it listens, read from its stdout (pino JSON, one entry a line,
 * each also given to `onEntry` as long as the process runs); rejects with what it wrote to stderr if it exits first.
 */
export function listeningAddress(
  child: ChildProcess,
  onEntry: (entry: Record<string, unknown>) => void = () => {},
): Promise<string> {
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  return new Promise<string>((resolve, reject) => {
    let rest = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        onEntry(entry);
        if (entry.msg === 'lectern listening') resolve(String(entry.address));
      }
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the server exited (${code ?? signal}) before listening: ${stderr.join('')}`)),
    );
  });
}

/** Starts `lectern serve` on a free port with two workers (or `workers`) and no warm-up; resolves once it listens. */
export async function startChildServer(
  opts: { dataDir?: string; key?: string; env?: Record<string, string>; workers?: number } = {},
): Promise<ChildServer> {
  const dataDir = opts.dataDir ?? tempDir('lectern-child-');
  const key = opts.key ?? randomBytes(16).toString('hex');
  // Under LECTERN_TEST_STORE=postgres, the folder's own database and bucket prefix on the team services.
  const store = await storeEnvFor(dataDir);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin', 'lectern.js'),
      'serve',
      '--data-dir',
      dataDir,
      '-p',
      '0',
      '--workers',
      String(opts.workers ?? 2),
    ],
    {
      // The data folder as working directory: no lectern.yaml of the repository is picked up.
      cwd: dataDir,
      env: {
        ...process.env,
        SERVICE_API_KEY: key,
        LECTERN_WARM_UP_ROUNDS: '0',
        LECTERN_LOG_LEVEL: 'info',
        ...store,
        ...(store.LECTERN_DATABASE_URL ? { LECTERN_TASK_LEASE_MS: String(TEST_TASK_LEASE_MS) } : {}),
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('the server process did not start');
  const logs: Record<string, unknown>[] = [];
  let stderrTail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  let ended: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve((ended = { code, signal }))),
  );
  const url = await listeningAddress(child, (entry) => logs.push(entry));

  return {
    pid,
    url,
    key,
    dataDir,
    logs,
    exited,
    ...serverClient(url, key),
    peakRssMb: () => statusField(pid, 'VmHWM'),
    rssMb: () => statusField(pid, 'VmRSS'),
    resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    deathNote() {
      if (!ended) return null;
      const warnings = logs.filter((e) => Number(e.level) >= 40).slice(-5);
      return [
        `the server (pid ${pid}) exited (${ended.code ?? ended.signal})`,
        `stderr: ${stderrTail.trim() || '(nothing)'}`,
        `last warnings: ${warnings.map((e) => JSON.stringify(e)).join('\n') || '(none)'}`,
      ].join('\n');
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * The real server as a child process (`lectern serve`, the built dist/cli.js), for what only a process of
 * its own can show: its peak RSS (worker threads included, read from /proc), and surviving or dying of a
 * signal (kill -9). Tests that need neither use startServer (test/helpers/app.ts) in their own process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, serverClient, tempDir } from './app.js';
import { storeEnvFor, TEST_TASK_LEASE_MS } from './test-database.js';

export interface ChildServer {
  readonly pid: number;
  readonly url: string;
  readonly key: string;
  readonly dataDir: string;
  /** Every line the server logged (pino JSON), parsed. */
  readonly logs: Record<string, unknown>[];
  call(
    method: string,
    path: string,
    opts?: { json?: unknown; body?: BodyInit; headers?: Record<string, string> },
  ): Promise<Response>;
  upload(name: string, data: Uint8Array, fields?: Record<string, string>): Promise<Response>;
  /** Polls GET /jobs/{id} until its status is one of `until`. */
  waitFor(jobId: string, until?: string[], timeoutMs?: number): Promise<Record<string, any>>;
  /** Highest resident set size (MB) since the start or the last `resetPeak` (VmHWM). */
  peakRssMb(): number;
  rssMb(): number;
  /** Starts a new high-water mark at the current RSS (/proc/PID/clear_refs). */
  resetPeak(): void;
  /** Sends the signal and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return m ? Number(m[1]) / 1024 : NaN;
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
  const stderr: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
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
        logs.push(entry);
        if (entry.msg === 'lectern listening') resolve(String(entry.address));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    void exited.then(({ code, signal }) =>
      reject(new Error(`the server exited (${code ?? signal}) before listening: ${stderr.join('')}`)),
    );
  });

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
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, tempDir } from './app.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

// Settings come only from what the test passes: no LECTERN_* or SERVICE_API_KEY of the calling shell.
function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LECTERN_') && k !== 'SERVICE_API_KEY')) as Record<string, string>;
  return { ...env, NO_COLOR: '1', ...extra };
}

const cliPath = join(repoRoot, 'bin', 'lectern.js');

/** Runs `lectern …` as a user would: bin/lectern.js (the built dist/cli.js) in a child process. */
export function lectern(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): CliRun {
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? tempDir('lectern-cwd-'), env: cliEnv(opts.env), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The same, without blocking this process: needed when the command talks to a server running in this
 * process (startServer), which must go on answering while the command runs.
 */
export function lecternAsync(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? tempDir('lectern-cwd-'), env: cliEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

export interface CreatedKey {
  name: string;
  role: string;
  scope: { bots: string[]; jobs: string[] };
  prefix: string;
  secret: string;
}

/**
 * `lectern keys create NAME --role ROLE [--bots …] [--jobs …] --json` against a server's data folder, as its
 * admin would run it (the server owns the folder, so the command goes through it with the server's key);
 * throws on failure.
 */
export async function createKey(server: { dataDir: string; key: string }, name: string, role: string, scope: { bots?: string[]; jobs?: string[] } = {}): Promise<CreatedKey> {
  const args = ['keys', 'create', name, '--role', role, '--data-dir', server.dataDir, '--json'];
  if (scope.bots?.length) args.push('--bots', scope.bots.join(','));
  if (scope.jobs?.length) args.push('--jobs', scope.jobs.join(','));
  const r = await lecternAsync(args, { env: { SERVICE_API_KEY: server.key } });
  if (r.status !== 0) throw new Error(`lectern keys create ${name} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedKey;
}

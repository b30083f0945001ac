import { spawnSync } from 'node:child_process';
import { tempDir } from './app.js';
import { cliEnv, lecternBin, lecternDone } from './pty.js';
import { storeEnvFor } from './test-database.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
}

// Settings come only from what the test passes (cliEnv drops LECTERN_* and SERVICE_API_KEY of the calling
// shell); output without colours; a working folder of its own, so no lectern.yaml is picked up.
const where = (opts: CliOptions) => ({
  cwd: opts.cwd ?? tempDir('lectern-cwd-'),
  env: cliEnv({ NO_COLOR: '1', ...opts.env }),
});

/** Runs `lectern …` as a user would: bin/lectern.js (the built dist/cli.js) in a child process. */
export function lectern(args: string[], opts: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [lecternBin, ...args], { ...where(opts), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The same, without blocking this process: needed when the command talks to a server running in this
 * process (startServer), which must go on answering while the command runs.
 */
export async function lecternAsync(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  // A test server on PostgreSQL (LECTERN_TEST_STORE=postgres): its folder's commands are given its database and bucket.
  const dir = args[args.indexOf('--data-dir') + 1];
  const store = args.includes('--data-dir') && dir ? await storeEnvFor(dir) : {};
  const r = await lecternDone(
    args,
    where(store.LECTERN_DATABASE_URL ? { ...opts, env: { ...store, ...opts.env } } : opts),
  );
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
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
export async function createKey(
  server: { dataDir: string; key: string },
  name: string,
  role: string,
  scope: { bots?: string[]; jobs?: string[] } = {},
): Promise<CreatedKey> {
  const args = ['keys', 'create', name, '--role', role, '--data-dir', server.dataDir, '--json'];
  if (scope.bots?.length) args.push('--bots', scope.bots.join(','));
  if (scope.jobs?.length) args.push('--jobs', scope.jobs.join(','));
  const r = await lecternAsync(args, { env: { SERVICE_API_KEY: server.key } });
  if (r.status !== 0) throw new Error(`lectern keys create ${name} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedKey;
}

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, tempDir } from './app.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `lectern …` as a user would: bin/lectern.js (the built dist/cli.js) in a child process. */
export function lectern(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): CliRun {
  // Settings come only from what the test passes: no LECTERN_* or SERVICE_API_KEY of the calling shell.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LECTERN_') && k !== 'SERVICE_API_KEY')) as Record<string, string>;
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'lectern.js'), ...args], {
    cwd: opts.cwd ?? tempDir('lectern-cwd-'),
    env: { ...env, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface CreatedKey {
  name: string;
  role: string;
  scope: { bots: string[]; jobs: string[] };
  prefix: string;
  secret: string;
}

/** `lectern keys create NAME --role ROLE [--bots …] [--jobs …] --json` against a data folder; throws on failure. */
export function createKey(dataDir: string, name: string, role: string, scope: { bots?: string[]; jobs?: string[] } = {}): CreatedKey {
  const args = ['keys', 'create', name, '--role', role, '--data-dir', dataDir, '--json'];
  if (scope.bots?.length) args.push('--bots', scope.bots.join(','));
  if (scope.jobs?.length) args.push('--jobs', scope.jobs.join(','));
  const r = lectern(args);
  if (r.status !== 0) throw new Error(`lectern keys create ${name} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedKey;
}

/** Runs scripts/team-services.sh: no vitest here, so benchmarks start the same services. */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts', 'team-services.sh');

/** What `scripts/team-services.sh start` exports: the team server's configuration. */
export interface TeamEnv {
  LECTERN_DATABASE_URL: string;
  LECTERN_OBJECT_STORE_URL: string;
  AWS_ENDPOINT_URL_S3: string;
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
  AWS_REGION: string;
}
const KEYS = [
  'LECTERN_DATABASE_URL',
  'LECTERN_OBJECT_STORE_URL',
  'AWS_ENDPOINT_URL_S3',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_REGION',
] as const;

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the script with one command on DIR (`stop DIR postgres`: PostgreSQL alone); never rejects, so a caller can check a non-zero exit. */
export function runTeamScript(
  command: 'start' | 'stop' | 'status',
  dir: string,
  only?: 'postgres',
): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile('bash', [script, command, dir, ...(only ? [only] : [])], { timeout: 180_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `export NAME=value` lines the script prints, checked to hold every variable. */
export function parseTeamEnv(text: string): TeamEnv {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) found.set(m[1]!, m[2]!);
  }
  const env = {} as Record<(typeof KEYS)[number], string>;
  for (const key of KEYS) {
    const value = found.get(key);
    if (!value) throw new Error(`team-services.sh printed no ${key}:\n${text}`);
    env[key] = value;
  }
  return env;
}

export interface TeamServices {
  dir: string;
  env: TeamEnv;
  /** Starts both services again (or finds them running) and returns what the script printed. */
  start(): Promise<TeamEnv>;
  stop(): Promise<void>;
  /** Stops PostgreSQL alone (a later start() starts it again on its data and, while free, its port). */
  stopPostgres(): Promise<void>;
}

async function must(command: 'start' | 'stop', dir: string, only?: 'postgres'): Promise<string> {
  const run = await runTeamScript(command, dir, only);
  if (run.code !== 0) throw new Error(`team-services.sh ${command} exited ${run.code}:\n${run.stderr}${run.stdout}`);
  return run.stdout;
}

/**
 * Starts PostgreSQL with pgvector and the S3 gateway under a new temp folder. Under root, PostgreSQL runs
 * as an unprivileged user that must reach the folder: the test run's temp folders are made by mkdtemp
 * (mode 0700), so the new folder and those above it up to os.tmpdir() are opened for traversal (x, not
 * listing).
 */
export async function startTeamServices(): Promise<TeamServices> {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-team-'));
  const top = dirname(tmpdir());
  for (let d = dir; process.getuid?.() === 0 && d !== top && d.startsWith(top); d = dirname(d)) {
    const mode = statSync(d).mode & 0o7777;
    if ((mode & 0o011) !== 0o011) chmodSync(d, mode | 0o011);
  }
  const services: TeamServices = {
    dir,
    env: {} as TeamEnv,
    async start() {
      services.env = parseTeamEnv(await must('start', dir));
      return services.env;
    },
    stop: async () => void (await must('stop', dir)),
    stopPostgres: async () => void (await must('stop', dir, 'postgres')),
  };
  try {
    await services.start();
  } catch (err) {
    await runTeamScript('stop', dir);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return services;
}

/**
 * Creates database `name` on the server `url` names (dropped first, should an earlier run have left it) and
 * gives its URL. `admin` runs the statements when the caller holds a connection to that server already.
 */
export async function freshDatabase(
  url: string,
  name: string,
  admin?: { query(sql: string): Promise<unknown> },
): Promise<string> {
  const client = admin ? null : new pg.Client({ connectionString: url });
  await client?.connect();
  try {
    const run = admin ?? client!;
    await run.query(`DROP DATABASE IF EXISTS ${name}`);
    await run.query(`CREATE DATABASE ${name}`);
  } finally {
    await client?.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.href;
}

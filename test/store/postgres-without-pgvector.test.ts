/**
 * A PostgreSQL without pgvector is refused at start in one line that says what to install (and so are a
 * wrong and an unreachable database_url, by `lectern serve` itself). The server is
 * real: Debian's PostgreSQL 15, which has no pgvector package, in a cluster of the test's own.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../server/store/postgres/connection.js';
import { removeDir, repoRoot } from '../helpers/app.js';

const BIN = '/usr/lib/postgresql/15/bin';
const USER = process.env.LECTERN_PG_USER ?? 'lectern-pg';
const asPg = (cmd: string, args: string[]) =>
  process.getuid?.() === 0 ? (['runuser', ['-u', USER, '--', cmd, ...args]] as const) : ([cmd, args] as const);

let dir = '';
let server: ChildProcess | undefined;
let port = 0;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  if (process.getuid?.() === 0) {
    try {
      execFileSync('id', [USER], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
    }
  }
  // The test run's temp folder is private (0700): the server's user needs to pass through it.
  chmodSync(tmpdir(), statSync(tmpdir()).mode | 0o011);
  dir = mkdtempSync(join(tmpdir(), 'lectern-pg15-'));
  chmodSync(dir, 0o777);
  const [initCmd, initArgs] = asPg(join(BIN, 'initdb'), ['-D', join(dir, 'data'), '-U', 'postgres', '-A', 'trust']);
  execFileSync(initCmd, initArgs, { stdio: 'ignore' });
  port = await freePort();
  const [cmd, args] = asPg(join(BIN, 'postgres'), [
    '-D',
    join(dir, 'data'),
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
  ]);
  server = spawn(cmd, args, { stdio: 'ignore', detached: true });
  for (let i = 0; i < 300 && !existsSync(join(dir, `.s.PGSQL.${port}`)); i++)
    await new Promise((r) => setTimeout(r, 100));
});
afterAll(async () => {
  // runuser does not pass signals on: the server's whole process group is told to shut down fast.
  if (server?.pid && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    process.kill(-server.pid, 'SIGINT');
    await exited;
  }
  if (dir) removeDir(dir);
});

describe('a PostgreSQL without pgvector', () => {
  it('is refused at start in one line naming what to install, and left untouched', async () => {
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const err = (await openPostgres(url, join(repoRoot, 'drizzle', 'pg')).catch((e: Error) => e)) as Error & {
      code?: string;
    };
    expect(err.code).toBe('INVALID_SETTINGS');
    expect(err.message).toMatch(
      /^database_url postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: this PostgreSQL has no pgvector extension: install it .*pgvector/,
    );
    expect(err.message).not.toContain('\n');
    const [cmd, args] = asPg(join(BIN, 'psql'), [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-tAc',
      "SELECT count(*) FROM pg_namespace WHERE nspname = 'drizzle'",
    ]);
    expect(execFileSync(cmd, args, { encoding: 'utf8' }).trim()).toBe('0');
  });

  it('stops `lectern serve` with that one line, as it stops a wrong or unreachable database_url', async () => {
    const serve = (databaseUrl: string) => {
      const r = spawnSync(
        process.execPath,
        [
          join(repoRoot, 'bin', 'lectern.js'),
          'serve',
          '--data-dir',
          mkdtempSync(join(tmpdir(), 'lectern-refused-')),
          '-p',
          '0',
          '--database-url',
          databaseUrl,
        ],
        {
          encoding: 'utf8',
          timeout: 60_000,
          env: { ...process.env, LECTERN_WARM_UP_ROUNDS: '0' },
        },
      );
      return { status: r.status, lines: r.stderr.trim().split('\n') };
    };
    const noVector = serve(`postgres://postgres@127.0.0.1:${port}/postgres`);
    expect(noVector.status).toBe(2);
    expect(noVector.lines).toHaveLength(1);
    expect(noVector.lines[0]).toMatch(
      /^lectern serve: database_url postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: this PostgreSQL has no pgvector extension: install it /,
    );
    const unreachable = serve('postgres://lectern:s3cret@127.0.0.1:1/lectern');
    expect(unreachable.status).toBe(2);
    expect(unreachable.lines).toHaveLength(1);
    expect(unreachable.lines[0]).toMatch(
      /^lectern serve: database_url postgres:\/\/lectern:\*\*\*@127\.0\.0\.1:1\/lectern: cannot connect: .*ECONNREFUSED/,
    );
    const wrong = serve('mysql://db/lectern');
    expect(wrong.status).toBe(2);
    expect(wrong.lines).toEqual([
      expect.stringMatching(/^lectern serve: database_url mysql:\/\/db\/lectern: must start with postgres:\/\//),
    ]);
  });
});

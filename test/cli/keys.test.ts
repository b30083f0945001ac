import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { startServer, tempDir } from '../helpers/app.js';
import { lectern, lecternAsync } from '../helpers/keys-cli.js';
import { acquireDataLock } from '../../server/store/data-lock.js';

// `lectern keys` run as a user runs it (bin/lectern.js over the built dist/cli.js), with no server running.

const oneLine = (text: string) => text.trimEnd().split('\n');

describe('lectern keys', () => {
  it('creates a key, printing only its secret on stdout, and lists it without the secret', () => {
    const dir = tempDir();
    const empty = lectern(['keys', 'list', '--data-dir', dir]);
    expect(empty).toMatchObject({ status: 0, stdout: '' });
    expect(empty.stderr).toMatch(/no keys yet: lectern keys create/);
    expect(JSON.parse(lectern(['keys', 'list', '--json', '--data-dir', dir]).stdout)).toEqual({ keys: [] });

    const made = lectern(['keys', 'create', 'desk', '--role', 'reviewer', '--data-dir', dir]);
    expect(made.status).toBe(0);
    const secret = made.stdout.trim();
    expect(secret).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect(made.stderr).toMatch(/shown once/);

    const list = lectern(['keys', 'list', '--data-dir', dir]);
    expect(list.status).toBe(0);
    expect(oneLine(list.stdout)[0]).toMatch(/^NAME\s+ROLE\s+SEES\s+PREFIX/);
    expect(list.stdout).toMatch(new RegExp(`desk\\s+reviewer\\s+all\\s+${secret.slice(0, 11)}…`));
    expect(list.stdout).not.toContain(secret);
    const [listed] = JSON.parse(lectern(['keys', 'list', '--json', '--data-dir', dir]).stdout).keys;
    expect(listed).toMatchObject({
      name: 'desk',
      role: 'reviewer',
      scope: { bots: [], jobs: [] },
      prefix: secret.slice(0, 11),
      revoked_at: null,
      last_used_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('answers --json with the key and its secret; two keys never share a secret', () => {
    const dir = tempDir();
    const a = JSON.parse(lectern(['keys', 'create', 'a', '--role', 'reader', '--json', '--data-dir', dir]).stdout);
    const b = JSON.parse(lectern(['keys', 'create', 'b', '--role', 'admin', '--json', '--data-dir', dir]).stdout);
    expect(a).toMatchObject({ name: 'a', role: 'reader', prefix: a.secret.slice(0, 11) });
    expect(b.role).toBe('admin');
    expect(a.secret).not.toBe(b.secret);
  });

  it('revokes a key once; its name can then be given to a new key, and both are listed', () => {
    const dir = tempDir();
    lectern(['keys', 'create', 'ops', '--role', 'admin', '--data-dir', dir]);
    const revoked = lectern(['keys', 'revoke', 'ops', '--data-dir', dir]);
    expect(revoked).toMatchObject({ status: 0 });
    expect(revoked.stdout).toMatch(/revoked key ops/);
    const again = lectern(['keys', 'revoke', 'ops', '--data-dir', dir]);
    expect(again.status).toBe(1);
    expect(oneLine(again.stderr)).toEqual([
      expect.stringMatching(/^lectern keys revoke: no key named ops .*\(hint: lectern keys list/),
    ]);
    expect(lectern(['keys', 'create', 'ops', '--role', 'reader', '--data-dir', dir]).status).toBe(0);
    const keys = JSON.parse(lectern(['keys', 'list', '--json', '--data-dir', dir]).stdout).keys as {
      name: string;
      role: string;
      revoked_at: string | null;
    }[];
    expect(keys.map((k) => [k.name, k.role, k.revoked_at === null])).toEqual([
      ['ops', 'admin', false],
      ['ops', 'reader', true],
    ]);
  });

  it('fails with one line and a hint: exit 1 when the operation fails, 2 when the command line is wrong', () => {
    const dir = tempDir();
    lectern(['keys', 'create', 'taken', '--role', 'reader', '--data-dir', dir]);
    const cases: [string[], number, RegExp][] = [
      [
        ['keys', 'create', 'taken', '--role', 'reader'],
        1,
        /already exists \(hint: revoke it first \(lectern keys revoke taken\)/,
      ],
      [['keys', 'create', 'x', '--role', 'boss'], 2, /role "boss" is not one of reader, reviewer, admin \(hint: /],
      [
        ['keys', 'create', 'x'],
        2,
        /required option '--role <role>' not specified \(hint: lectern keys create --help\)/,
      ],
      [['keys', 'create', 'bad name!', '--role', 'reader'], 2, /must be 1-64 letters/],
      [['keys', 'create', 'service', '--role', 'reader'], 2, /service key's name/],
      [
        ['keys', 'create', 'x', '--role', 'reader', '--bots', 'no-such-bot', '--jobs', 'no-such-job'],
        2,
        /no such bot no-such-bot, job no-such-job \(hint: /,
      ],
      [
        ['keys', 'list', '--bogus'],
        2,
        /^lectern keys list: unknown option '--bogus' \(hint: lectern keys list --help\)/,
      ],
      [
        ['keys', 'lst'],
        2,
        /^lectern keys: unknown command 'lst' \(Did you mean list\?\) \(hint: lectern keys --help\)/,
      ],
    ];
    for (const [args, status, message] of cases) {
      const r = lectern([...args, '--data-dir', dir]);
      expect(r.status, args.join(' ')).toBe(status);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(oneLine(r.stderr), args.join(' ')).toEqual([expect.stringMatching(message)]);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^lectern keys${args[1] === 'lst' ? '' : ` ${args[1]}`}: `));
    }
    expect(JSON.parse(lectern(['keys', 'list', '--json', '--data-dir', dir]).stdout).keys).toHaveLength(1);
  });

  it('finds the data folder like the other commands: -c, ./lectern.yaml, LECTERN_DATA_DIR', () => {
    const [a, b, c] = [tempDir(), tempDir(), tempDir()];
    const cwd = tempDir('lectern-cwd-');
    writeFileSync(join(cwd, 'lectern.yaml'), `data_dir: ${a}\n`);
    mkdirSync(join(cwd, 'conf'));
    writeFileSync(join(cwd, 'conf', 'other.yaml'), `data_dir: ${b}\n`);
    expect(lectern(['keys', 'create', 'from-yaml', '--role', 'reader'], { cwd }).status).toBe(0);
    expect(lectern(['keys', 'create', 'from-c', '--role', 'reader', '-c', 'conf/other.yaml'], { cwd }).status).toBe(0);
    expect(lectern(['keys', 'create', 'from-env', '--role', 'reader'], { env: { LECTERN_DATA_DIR: c } }).status).toBe(
      0,
    );
    const names = (dir: string) =>
      JSON.parse(lectern(['keys', 'list', '--json', '--data-dir', dir]).stdout).keys.map(
        (k: { name: string }) => k.name,
      );
    expect([names(a), names(b), names(c)]).toEqual([['from-yaml'], ['from-c'], ['from-env']]);
  });

  it('goes through the server that owns the data folder, with its key; without the key it says so and writes nothing', async () => {
    const server = await startServer({ settings: { workers: 1 } });
    try {
      const env = { SERVICE_API_KEY: server.key };
      const made = await lecternAsync(
        ['keys', 'create', 'through-server', '--role', 'reader', '--json', '--data-dir', server.dataDir],
        { env },
      );
      expect(made.status, made.stderr).toBe(0);
      const { secret } = JSON.parse(made.stdout) as { secret: string };
      // The key works at once.
      expect((await fetch(`${server.url}/health`, { headers: { 'x-api-key': secret } })).status).toBe(200);
      expect(
        JSON.parse(
          (await lecternAsync(['keys', 'list', '--json', '--data-dir', server.dataDir], { env })).stdout,
        ).keys.map((k: { name: string }) => k.name),
      ).toEqual(['through-server']);

      const keyless = await lecternAsync([
        'keys',
        'create',
        'no-key',
        '--role',
        'reader',
        '--data-dir',
        server.dataDir,
      ]);
      expect(keyless.status).toBe(1);
      expect(oneLine(keyless.stderr)).toEqual([
        expect.stringMatching(/^lectern keys create: .*owns the data folder.*SERVICE_API_KEY/),
      ]);
      const wrongKey = await lecternAsync(['keys', 'revoke', 'through-server', '--data-dir', server.dataDir], {
        env: { SERVICE_API_KEY: 'not-the-key' },
      });
      expect(wrongKey.status).toBe(1);
      expect(wrongKey.stderr).toMatch(/UNAUTHORIZED|does not match/);

      expect(
        (await lecternAsync(['keys', 'revoke', 'through-server', '--data-dir', server.dataDir], { env })).status,
      ).toBe(0);
      expect((await fetch(`${server.url}/health`, { headers: { 'x-api-key': secret } })).status).toBe(401);
    } finally {
      await server.close();
    }
    // Nothing but the server wrote: the one key in the database is the one made through it.
    const db = new Database(join(server.dataDir, 'lectern.db'), { readonly: true });
    expect((db.prepare('SELECT name FROM api_keys').all() as { name: string }[]).map((r) => r.name)).toEqual([
      'through-server',
    ]);
    db.close();
  });

  it('waits for no one: a folder another command holds is refused with who holds it', () => {
    const dir = tempDir();
    const lock = acquireDataLock(dir, { kind: 'cli', command: 'add-doc' });
    try {
      const r = lectern(['keys', 'create', 'blocked', '--role', 'reader', '--data-dir', dir]);
      expect(r.status).toBe(1);
      expect(oneLine(r.stderr)).toEqual([
        expect.stringMatching(/^lectern keys create: the data folder .* is in use by `lectern add-doc` \(pid \d+\)/),
      ]);
    } finally {
      lock.release();
    }
    expect(lectern(['keys', 'create', 'after', '--role', 'reader', '--data-dir', dir]).status).toBe(0);
  });

  it('shows help with examples and exits 0', () => {
    const r = lectern(['keys', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n\s+\$ lectern keys create desk --role reviewer/);
    expect(lectern(['keys', 'create', '--help']).stdout).toMatch(/--role <role>.*reader, reviewer, admin/s);
  });
});

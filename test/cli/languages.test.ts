import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDataLock } from '../../server/store/data-lock.js';
import { json, repoRoot, startServer, tempDir } from '../helpers/app.js';
import { startNpmRegistry, type NpmRegistry } from '../helpers/npm-registry.js';
import { cliEnv, lecternDone } from '../helpers/pty.js';

// `lectern languages` as a person runs it, in a pseudo-terminal, against a local server speaking the npm
// registry's protocol (the product fetches from registry.npmjs.org the same way), and piped with --json.

let registry: NpmRegistry;
let corrupt: NpmRegistry;
beforeAll(async () => {
  [registry, corrupt] = await Promise.all([startNpmRegistry(['deu']), startNpmRegistry(['deu'], { corrupt: true })]);
});
afterAll(async () => {
  await registry?.close();
  await corrupt?.close();
});

/** A fresh data folder; the registries on this machine's loopback are allowed outbound hosts. */
function folder(moreHosts: string[] = []) {
  const cwd = tempDir('lectern-languages-');
  const env = cliEnv({ LECTERN_ALLOWED_PRIVATE_HOSTS: [registry.host, corrupt.host, ...moreHosts].join(',') });
  const run = (args: string[], pty = true) =>
    lecternDone(['languages', ...args, '--data-dir', join(cwd, 'data')], { cwd, env, pty });
  return { cwd, dir: join(cwd, 'data', 'ocr-languages'), run };
}

const oneLine = (text: string) => text.trimEnd().split('\n').filter(Boolean);

describe('lectern languages', () => {
  it('--help shows the subcommands, examples and exit codes', async () => {
    const { run } = folder();
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/list\s.*known OCR language/);
    expect(help.stdout).toMatch(/add \[options\] <codes\.\.\.>/);
    expect(help.stdout).toContain('lectern languages add deu fra');
    expect(help.stdout).toContain('ocr_language=eng+deu');
    expect(help.stdout).toMatch(/Exit status: 0 done, 1 failed .*, 2 wrong usage/);
  });

  it('lists every language: English bundled, the others with the command that adds them (Russian: the local way)', async () => {
    const { run } = folder();
    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^CODE\s+LANGUAGE\s+SCRIPT\s+STATE/m);
    expect(list.stdout).toMatch(/^eng\s+English\s+Latin\s+installed \(bundled\)/m);
    expect(list.stdout).toMatch(/^deu\s+German\s+Latin\s+lectern languages add deu/m);
    expect(list.stdout).toMatch(/^ara\s+Arabic\s+Arabic \(right to left\)\s+lectern languages add ara/m);
    expect(list.stdout).toMatch(/^rus\s+Russian\s+Cyrillic\s+apt-get install tesseract-ocr-rus/m);
    const json = await run(['list', '--json'], false);
    const parsed = JSON.parse(json.stdout);
    const codes = parsed.languages.map((l: { code: string }) => l.code);
    expect(codes).toEqual(
      expect.arrayContaining(['eng', 'deu', 'fra', 'spa', 'ita', 'por', 'rus', 'ara', 'chi_sim', 'jpn']),
    );
    expect(parsed.languages.find((l: { code: string }) => l.code === 'eng')).toMatchObject({
      installed: true,
      bundled: true,
    });
    expect(parsed.languages.find((l: { code: string }) => l.code === 'chi_sim')).toMatchObject({
      installed: false,
      install: 'lectern languages add chi_sim',
    });
  });

  it('adds a language from the registry (checked against its integrity), lists it, skips it when there, and removes it again', async () => {
    const { run, dir } = folder();
    const before = registry.requests.length;
    const add = await run(['add', 'deu', '--registry', registry.url]);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/✔ deu \(German\) installed: 1\.3 MiB, @tesseract\.js-data\/deu@1\.0\.0/);
    expect(registry.requests.slice(before)).toEqual([
      'GET /@tesseract.js-data%2fdeu/1.0.0',
      'GET /@tesseract.js-data/deu/-/deu-1.0.0.tgz',
    ]);
    const model = readFileSync(join(dir, 'deu.traineddata.gz'));
    const packaged = readFileSync(
      join(repoRoot, 'node_modules/@tesseract.js-data/deu/4.0.0_best_int/deu.traineddata.gz'),
    );
    expect(model.equals(packaged)).toBe(true);
    const note = JSON.parse(readFileSync(join(dir, 'deu.json'), 'utf8'));
    expect(note).toMatchObject({
      code: 'deu',
      package: '@tesseract.js-data/deu@1.0.0',
      integrity: expect.stringMatching(/^sha512-/),
      bytes: model.length,
    });

    const listed = JSON.parse((await run(['list', '--json'], false)).stdout);
    expect(listed.languages.find((l: { code: string }) => l.code === 'deu')).toMatchObject({
      installed: true,
      bundled: false,
      package: '@tesseract.js-data/deu@1.0.0',
    });
    expect((await run(['list'])).stdout).toMatch(/^deu\s+German\s+Latin\s+installed \(1\.3 MiB\)/m);

    const again = await run(['add', 'deu', '--registry', registry.url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('deu is already installed');

    const removed = await run(['remove', 'deu']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('removed deu');
    expect(existsSync(join(dir, 'deu.traineddata.gz'))).toBe(false);
    expect(
      JSON.parse((await run(['list', '--json'], false)).stdout).languages.find(
        (l: { code: string }) => l.code === 'deu',
      ).installed,
    ).toBe(false);
    const twice = await run(['remove', 'deu']);
    expect(twice.code).toBe(1);
    expect(twice.stdout).toContain('not installed');
  });

  it("installs nothing from a tarball that does not match the registry's integrity (exit 1, one line with a hint)", async () => {
    const { run, dir } = folder();
    const bad = await run(['add', 'deu', '--registry', corrupt.url]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stdout)).toEqual([
      expect.stringMatching(/^deu: fetching/),
      expect.stringMatching(
        /^lectern languages add: .*does not match the integrity the registry states for @tesseract\.js-data\/deu@1\.0\.0 \(hint: the download was altered/,
      ),
    ]);
    expect(existsSync(join(dir, 'deu.traineddata.gz'))).toBe(false);
  });

  it('refuses an unknown code before fetching anything (exit 2, listing the known ones), and says how to add Russian', async () => {
    const { run } = folder();
    const before = registry.requests.length;
    const unknown = await run(['add', 'deu', 'klingon', '--registry', registry.url]);
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stdout)).toEqual([
      expect.stringMatching(
        /^lectern languages add: unknown OCR language klingon \(hint: known: eng, deu, fra, .*chi_sim.*\)/,
      ),
    ]);
    expect(registry.requests.length).toBe(before);
    const rus = await run(['add', 'rus', '--registry', registry.url]);
    expect(rus.code).toBe(1);
    expect(rus.stdout).toMatch(
      /Russian \(rus\) is not on the npm registry \(hint: apt-get install tesseract-ocr-rus, then lectern languages add rus --from/,
    );
    const noRegistry = await run(['add', 'fra', '--registry', registry.url]);
    expect(noRegistry.code).toBe(1);
    expect(noRegistry.stdout).toMatch(
      /has no @tesseract\.js-data\/fra@1\.0\.0 \(hint: check the network, or pass --registry/,
    );
  });

  it('installs from a local copy (the package folder, or a bad file refused) and answers --json', async () => {
    const { run, dir } = folder();
    const added = await run(
      ['add', 'deu', '--from', join(repoRoot, 'node_modules/@tesseract.js-data/deu'), '--json'],
      false,
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      languages_dir: dir,
      installed: [{ code: 'deu', package: '@tesseract.js-data/deu@1.0.0', integrity: null }],
    });
    const bad = await run(['add', 'ara', '--from', join(repoRoot, 'package.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/package\.json is not a tesseract \.traineddata model/);
    expect(existsSync(join(dir, 'ara.traineddata.gz'))).toBe(false);
  });
});

const packages = join(repoRoot, 'node_modules', '@tesseract.js-data');

describe('lectern languages and the owner of the data folder', () => {
  it("installs and removes through the server that owns the folder: its allowed hosts and document_roots, not the command's", async () => {
    // The command's own settings allow no private host: alone, it cannot reach the local registry.
    const env = cliEnv();
    const alone = folder();
    const refused = await lecternDone(
      ['languages', 'add', 'deu', '--registry', registry.url, '--data-dir', join(alone.cwd, 'data')],
      { cwd: alone.cwd, env, pty: true },
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /lectern languages add: .*\(hint: an address of this machine or its network must be listed in allowed_private_hosts/,
    );

    const server = await startServer({
      settings: { allowed_private_hosts: [registry.host], document_roots: [packages] },
    });
    try {
      const cwd = tempDir('lectern-languages-');
      const withKey = cliEnv({ SERVICE_API_KEY: server.key });
      const run = (args: string[], opts: { pty?: boolean; cwd?: string } = {}) =>
        lecternDone(['languages', ...args, '--data-dir', server.dataDir], {
          cwd: opts.cwd ?? cwd,
          env: withKey,
          pty: opts.pty ?? true,
        });
      const before = registry.requests.length;
      const add = await run(['add', 'deu', '--registry', registry.url]);
      expect(add.code, add.stdout).toBe(0);
      expect(add.stdout).toMatch(/✔ deu \(German\) installed: 1\.3 MiB, @tesseract\.js-data\/deu@1\.0\.0/);
      expect(registry.requests.slice(before)).toEqual([
        'GET /@tesseract.js-data%2fdeu/1.0.0',
        'GET /@tesseract.js-data/deu/-/deu-1.0.0.tgz',
      ]);
      const listed = await json(await server.call('GET', '/ocr-languages'));
      expect(listed.languages.find((l: { code: string }) => l.code === 'deu')).toMatchObject({
        installed: true,
        package: '@tesseract.js-data/deu@1.0.0',
      });
      expect((await run(['add', 'deu', '--registry', registry.url])).stdout).toContain('deu is already installed');

      const removed = await run(['remove', 'deu', '--json'], { pty: false });
      expect(removed.code).toBe(0);
      expect(JSON.parse(removed.stdout)).toEqual({ removed: ['deu'], not_installed: [] });
      const twice = await run(['remove', 'deu']);
      expect(twice.code).toBe(1);
      expect(twice.stdout).toContain(`not installed in ${join(server.dataDir, 'ocr-languages')}: deu`);

      // A relative --from is the command's (its working folder), sent whole; the server reads it inside its document_roots.
      const fromCopy = await run(['add', 'deu', '--from', 'deu', '--json'], { pty: false, cwd: packages });
      expect(fromCopy.code, fromCopy.stderr).toBe(0);
      expect(JSON.parse(fromCopy.stdout)).toMatchObject({
        languages_dir: join(server.dataDir, 'ocr-languages'),
        installed: [{ code: 'deu', source: join(packages, 'deu'), integrity: null }],
      });
      const outside = await run(['add', 'ara', '--from', join(repoRoot, 'package.json')]);
      expect(outside.code).toBe(1);
      expect(outside.stdout).toMatch(
        /lectern languages add: .*outside the folders documents may be read from .*\(hint: add its folder to document_roots/,
      );
      expect(existsSync(join(server.dataDir, 'ocr-languages', 'ara.traineddata.gz'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("holds the folder for the command's duration: another command meanwhile is refused, saying which holds it", async () => {
    // Its tarball waits until `release`: the command fetching it holds the folder meanwhile.
    const held = await startNpmRegistry(['deu'], { hold: true });
    try {
      const { cwd, run, dir } = folder([held.host]);
      const holder = run(['add', 'deu', '--registry', held.url]);
      await Promise.race([
        held.tarballAsked,
        holder.then((r) => Promise.reject(new Error(`the first command ended early: ${r.stdout}`))),
      ]);
      const lock = readDataLock(join(cwd, 'data'));
      expect(lock).toMatchObject({ owner: 'cli', command: 'languages add', alive: true });

      const remove = await run(['remove', 'deu']);
      expect(remove.code).toBe(1);
      expect(oneLine(remove.stdout)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^lectern languages remove: the data folder .* is in use by \`lectern languages add\` \\(pid ${lock!.pid}\\) \\(hint: wait for it to finish`,
          ),
        ),
      ]);
      const add = await run(['add', 'fra', '--registry', registry.url]);
      expect(add.code).toBe(1);
      expect(add.stdout).toContain(`in use by \`lectern languages add\` (pid ${lock!.pid})`);

      held.release();
      const first = await holder;
      expect(first.code, first.stdout).toBe(0);
      expect(existsSync(join(dir, 'deu.traineddata.gz'))).toBe(true);
      // Let go once done: the next command takes the folder.
      expect(readDataLock(join(cwd, 'data'))).toBeNull();
      expect((await run(['remove', 'deu'])).code).toBe(0);
    } finally {
      held.release();
      await held.close();
    }
  });
});

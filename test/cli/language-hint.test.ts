import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { installTestModel, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { GERMAN_LINES, makeGermanPdf } from '../helpers/make-german-pdf.js';
import { lecternDone } from '../helpers/pty.js';

// `lectern add-doc` in a real terminal, with the bot on the default embedding model (MiniLM, English only):
// a German PDF added prints one line naming the model that reads German and the commands that put the
// bot's collection on it; an English document, and a --json run, print none.

const MULTILINGUAL = 'multilingual-e5-small-int8';
let cwd = '';
let botId = '';

const done = (args: string[], pty = true) => lecternDone(args, { cwd, pty, input: pty ? undefined : '' });

beforeAll(async () => {
  cwd = tempDir('lectern-cli-languages-');
  const dataDir = join(cwd, 'data');
  writeFileSync(join(cwd, 'lectern.yaml'), `data_dir: ${dataDir}\ndocument_roots:\n  - ${cwd}\n`);
  writeFileSync(join(cwd, 'topics.md'), TOPICS_MD);
  writeFileSync(join(cwd, 'stadt.pdf'), await makeGermanPdf());
  // Another German text, so the document is new to the bot (the same bytes twice are added once).
  writeFileSync(join(cwd, 'fluss.pdf'), await makeGermanPdf(GERMAN_LINES.map((l) => l.replace('Stadt', 'Gemeinde'))));
  await installTestModel(dataDir);
  const bot = await done(['bot', 'create', '--prompt', 'You answer from the documents.', '--name', 'archiv']);
  expect(bot.code, bot.stdout).toBe(0);
  botId = /^([0-9a-f-]{36})$/m.exec(bot.stdout)![1]!;
}, 120_000);

describe('add-doc and a document in another language than English', () => {
  it('an English document gets no hint', async () => {
    const r = await done(['add-doc', botId, 'topics.md']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('✔ 1 of 1 document searchable');
    expect(r.stdout).not.toContain('hint:');
  });

  it('a German one: one line after the summary, naming the model that reads German and the commands to switch', async () => {
    const r = await done(['add-doc', botId, 'stadt.pdf']);
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-2)).toBe('✔ 1 of 1 document searchable');
    expect(lines.at(-1)).toBe(
      `hint: German is read better by ${MULTILINGUAL} than by the bot's ${TEST_MODEL} (English only): ` +
        `lectern models pull ${MULTILINGUAL} && lectern reindex bot-${botId} --model ${MULTILINGUAL}`,
    );
    expect(r.stdout.match(/hint:/g)).toHaveLength(1);
  });

  it('the collection the hint names is the bot’s: reindex finds it (and refuses its own model)', async () => {
    const r = await done(['reindex', `bot-${botId}`, '--model', TEST_MODEL]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`lectern reindex: collection bot-${botId} is already embedded with ${TEST_MODEL}`);
  });

  it('--json prints the outcome as JSON only, with no hint beside it', async () => {
    const r = await done(['add-doc', botId, 'fluss.pdf', '--json'], false);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).documents).toMatchObject([{ source: 'fluss.pdf', outcome: 'searchable' }]);
    expect(r.stderr).not.toContain('hint:');
  });
});

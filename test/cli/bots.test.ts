import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readDataLock } from '../../server/store/data-lock.js';
import { fixturesDir, tempDir } from '../helpers/app.js';
import { installChatModel, SMOLLM2 } from '../helpers/chat-flow.js';
import { installTestModel, TOPICS_MD } from '../helpers/embed-flow.js';
import { cliEnv, KEY, lecternDone, lecternInPty, lecternPiped, plain, type Run } from '../helpers/pty.js';
import { startWebPagesServer, type WebPagesServer } from '../helpers/web-pages-server.js';

// The bots commands as a person runs them, in a real terminal, once with no server (each command opens
// the data folder itself) and once with `lectern serve` running (commands go through it): bots, documents
// (a fixture PDF, a folder, a page of a local web site), and a chat with the real SmolLM2 model.

const PDF = 'survival-tiedtimes.pdf';
let cwd = '';
let dataDir = '';
let web: WebPagesServer;

beforeAll(async () => {
  cwd = tempDir('lectern-cli-');
  dataDir = join(cwd, 'data');
  mkdirSync(join(cwd, 'papers'));
  copyFileSync(join(fixturesDir, 'pdfs', PDF), join(cwd, 'papers', PDF));
  mkdirSync(join(cwd, 'notes'));
  writeFileSync(join(cwd, 'notes', 'topics.md'), TOPICS_MD);
  writeFileSync(
    join(cwd, 'notes', 'rivers.txt'),
    'The Nile and the Amazon are the longest rivers on Earth; their deltas are fertile farmland.\n',
  );
  // A GIF: an image, but not one Lectern reads as a document.
  writeFileSync(
    join(cwd, 'notes', 'logo.gif'),
    Uint8Array.from([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([1, 0, 1, 0, 0, 0, 0])),
  );
  web = await startWebPagesServer();
  writeFileSync(
    join(cwd, 'lectern.yaml'),
    [
      `data_dir: ${dataDir}`,
      'document_roots:',
      `  - ${cwd}`,
      'allowed_private_hosts:',
      `  - ${new URL(web.url).host}`,
      'server:',
      '  host: 127.0.0.1',
      '  port: 0',
      '',
    ].join('\n'),
  );
  await Promise.all([installTestModel(dataDir), installChatModel(dataDir, SMOLLM2)]);
});
afterAll(async () => web?.close());

const running: Run[] = [];
const run = (args: string[]) => {
  const r = lecternInPty(args, { cwd });
  running.push(r);
  return r;
};
// A test that fails half-way leaves no command holding the data folder for the next one.
afterEach(async () => {
  for (const r of running.splice(0)) {
    if (r.child.exitCode !== null) continue;
    r.child.kill('SIGTERM');
    await r.exited;
  }
});
const done = (args: string[], input?: string) => lecternDone(args, { cwd, pty: input === undefined, input });

async function createBot(name: string): Promise<string> {
  const r = await done(['bot', 'create', '--prompt', 'You answer from the documents you were given.', '--name', name]);
  expect(r.code, r.stdout).toBe(0);
  const id = /^([0-9a-f-]{36})$/m.exec(r.stdout)?.[1];
  expect(id, r.stdout).toBeDefined();
  expect(r.stdout).toContain(`created bot ${name}`);
  return id!;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The bar add-doc drew for each document: its finished line (the bar full, 100%, searchable), and the run drew
 * live bars (• label, the unfilled part ░) while the documents were on their way, not only the end state.
 */
function expectBars(raw: string, labels: (string | RegExp)[]): void {
  const shown = plain(raw);
  for (const l of labels) {
    const label = typeof l === 'string' ? escaped(l) : l.source;
    expect(shown, `the bar of ${label}`).toMatch(new RegExp(`^✔ ${label} +█{24} 100% searchable$`, 'm'));
  }
  expect(shown, 'a live bar while the documents were on their way').toMatch(/^• \S.* █*░+ +\d+% /m);
}

/** The parent process id of `pid` (Linux): which process started the command that holds the lock. */
const parentOf = (pid: number): number =>
  Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** Whether a piece of terminal output holds answer text (not the spinner, the prompt or blank lines). */
const isAnswerText = (data: string): boolean =>
  /\w/.test(plain(data).replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (searching|writing)…/g, ''));

/** Pieces of answer text written after `since` (ms) and before the one holding "Sources". */
function streamedPieces(r: Run, since: number): number {
  const after = r.chunks.filter((c) => c.at > since);
  const sources = after.findIndex((c) => plain(c.data).includes('Sources'));
  return after.slice(0, Math.max(sources, 0)).filter((c) => isAnswerText(c.data)).length;
}

/** Waits for the first piece of answer text written after `since` (ms). */
async function firstToken(r: Run, since: number, timeoutMs = 60_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((ok) => setTimeout(ok, 20))) {
    if (r.chunks.some((c) => c.at > since && isAnswerText(c.data))) return;
  }
  throw new Error(`no answer text after ${since} ms:\n${r.text()}`);
}

/** Types a question; returns when its line was echoed (answer text comes after that moment). */
async function askIn(r: Run, question: string): Promise<number> {
  const from = r.text().length;
  await r.type(question);
  await r.waitFor(question, { from });
  const echoed = r.chunks.at(-1)!.at;
  r.write(KEY.enter);
  return echoed;
}

function scenario(mode: 'without a server' | 'with a server') {
  let botId = '';
  let chatId = '';
  let server: Run | null = null;
  let url = '';
  let key = '';

  beforeAll(async () => {
    if (mode === 'without a server') return;
    server = lecternPiped(['serve'], { cwd });
    await server.waitFor(/lectern serve: .* on (http:\/\/127\.0\.0\.1:\d+)/);
    url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.stderr())![1]!;
    key = readFileSync(join(dataDir, 'api-key'), 'utf8').trim();
    expect(readDataLock(dataDir)).toMatchObject({ owner: 'server', url, pid: server.child.pid });
  });
  afterAll(async () => {
    if (!server) return;
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    expect(readDataLock(dataDir)).toBeNull();
  });

  it('bot create prints the id; bot list shows it in a table (and as JSON)', async () => {
    botId = await createBot(`manuals-${mode === 'with a server' ? 'srv' : 'local'}`);
    const table = await done(['bot', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/ID\s+NAME\s+DOCUMENTS\s+CHATS\s+CREATED/);
    // Created moments ago; on a loaded machine opening the folder for `bot list` alone can take seconds.
    expect(table.stdout).toMatch(
      new RegExp(`${botId}\\s+manuals-\\w+\\s+0\\s+0\\s+(just now|[1-5]?\\d seconds ago)\\n`),
    );
    if (server) {
      const json = await done(['bot', 'list', '--json'], '');
      expect(JSON.parse(json.stdout).bots.map((b: { bot_id: string }) => b.bot_id)).toContain(botId);
      // It went through the server: the server has it, and the folder is still the server's.
      const res = await fetch(`${url}/bots/${botId}`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      expect(readDataLock(dataDir)?.pid).toBe(server.child.pid);
    }
  });

  it('add-doc reads a PDF, a folder and a web page, with a bar per document until each is searchable', async () => {
    const pdf = await done(['add-doc', botId, join('papers', PDF)]);
    expect(pdf.code, pdf.stdout).toBe(0);
    expectBars(pdf.raw, [PDF]);
    expect(pdf.stdout).toContain('✔ 1 of 1 document searchable');

    const folder = await done(['add-doc', botId, 'notes']);
    expect(folder.code, folder.stdout).toBe(0);
    expectBars(folder.raw, ['topics.md', 'rivers.txt']);
    expect(folder.stdout).toMatch(/logo\.gif .* skipped: logo\.gif is not a PDF/);
    expect(folder.stdout).toContain('2 of 2 documents searchable; 1 skipped (not documents)');

    const page = `${web.url}/articles/heat-transfer`;
    const link = await done(['add-doc', botId, page]);
    expect(link.code, link.stdout).toBe(0);
    expectBars(link.raw, [/127\.0\.0\.1:\d+\/articles\/heat-transfer/]);
    expect(link.stdout).toContain('1 of 1 document searchable');
  });

  it('chat streams the answer token by token with its sources; Ctrl-C stops an answer, not the session; ↑ recalls; exit ends it', async () => {
    const chat = run(['chat', botId]);
    await chat.waitFor(/Ctrl-C stops an answer[\s\S]*› /);
    chatId = /chat ([0-9a-f-]{36}) \(new\)/.exec(chat.text())![1]!;
    if (!server) {
      // Waiting for a question, the command itself holds the data folder: the lock names it, its process
      // is the one this terminal started, and another command is turned away rather than writing beside it.
      const lock = readDataLock(dataDir);
      expect(lock).toMatchObject({ owner: 'cli', command: 'chat', alive: true });
      expect(parentOf(lock!.pid)).toBe(chat.child.pid);
      const other = await done(['bot', 'list']);
      expect(other.code).toBe(1);
      expect(other.stdout).toContain(`the data folder ${dataDir} is in use by \`lectern chat\` (pid ${lock!.pid})`);
    }
    const since = await askIn(chat, 'What does chlorophyll capture?');
    // Each source with its pages: topics.md is one page.
    await chat.waitFor(/Sources\n\s+\[S\d+\] [^\n]*topics\.md, p\. 1\n/, { timeoutMs: 90_000 });
    expect(streamedPieces(chat, since), 'the answer arrived in pieces').toBeGreaterThanOrEqual(3);
    const firstAnswer = chat
      .text()
      .slice(chat.text().lastIndexOf('What does chlorophyll capture?'), chat.text().lastIndexOf('Sources'));
    expect(firstAnswer.replace(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (searching|writing)…/g, '').trim().length).toBeGreaterThan(
      'What does chlorophyll capture?'.length + 10,
    );

    await chat.waitFor(/› $/);
    const long = await askIn(chat, 'Describe in detail how volcanoes erupt, step by step.');
    await firstToken(chat, long);
    chat.write(KEY.ctrlC);
    await chat.waitFor(/⏹ stopped\n\n› $/);

    const from = chat.text().length;
    chat.write(KEY.up);
    await chat.waitFor('Describe in detail how volcanoes erupt, step by step.', { from });
    chat.write(KEY.ctrlU);
    await chat.type(`exit${KEY.enter}`);
    expect(await chat.exited).toBe(0);
    expect(chat.text()).toContain(`chat saved: lectern chat ${botId} --chat-id ${chatId} continues it`);
    // Let go of once the command ends.
    if (!server) expect(existsSync(join(dataDir, 'lectern.lock'))).toBe(false);
  });

  it('chat --chat-id goes on with the saved chat; Ctrl-D ends it', async () => {
    if (server) {
      const history = await (await fetch(`${url}/chats/${chatId}`, { headers: { 'x-api-key': key } })).json();
      expect(history.messages.map((m: { status: string }) => m.status)).toEqual(['complete', 'cancelled']);
    }
    const again = run(['chat', botId, '--chat-id', chatId]);
    await again.waitFor(`chat ${chatId} (1 earlier message)`);
    await again.waitFor('› What does chlorophyll capture?');
    await again.waitFor(/› $/);
    again.write(KEY.ctrlD);
    expect(await again.exited).toBe(0);
  });

  it('piped questions are answered in turn as plain text with their sources', async () => {
    const r = await done(
      ['chat', botId, '--chat-id', chatId],
      'What does chlorophyll capture?\n\nHow is bread made?\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.raw).not.toContain('\x1b[');
    // Each answer is followed by its sources, or says it has none (SmolLM2 does not always cite).
    expect(
      r.stdout.match(
        /^(Sources|\(this answer cites no source\)|\(nothing in the bot's documents matched the question\))$/gm,
      ),
      r.stdout,
    ).toHaveLength(2);
    expect(r.stdout).toMatch(/^Sources\n {2}\[S\d+\] topics\.md, p\. 1$/m);
  });

  it('bot delete asks first on a terminal, then deletes the bot with everything it holds', async () => {
    const no = run(['bot', 'delete', botId]);
    await no.waitFor(new RegExp(`Delete bot manuals-\\w+ \\(${botId}\\) with its 4 documents and 1 chat\\?`));
    await no.type(`n${KEY.enter}`);
    expect(await no.exited).toBe(1);
    expect(no.text()).toContain(`lectern bot delete: bot ${botId} was not deleted`);
    expect((await done(['bot', 'list'])).stdout, 'n keeps the bot').toMatch(
      new RegExp(`${botId}\\s+manuals-\\w+\\s+4\\s+1`),
    );
    const yes = run(['bot', 'delete', botId]);
    await yes.waitFor(/Delete bot .* with its 4 documents and 1 chat\? This cannot be undone\. \(y\/N\)/);
    await yes.type(`y${KEY.enter}`);
    expect(await yes.exited).toBe(0);
    expect(yes.text()).toContain(`deleted bot ${botId}`);
    const gone = await done(['bot', 'delete', botId, '--yes']);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toMatch(
      /lectern bot delete: bot .* does not exist \(hint: `lectern bot list` shows every bot\)/,
    );
  });

  it('a chat whose model is missing says how to install it', async () => {
    // A bot that answers with a catalogued model that is not installed here: made through the server's API,
    // or, with no server, by `bot create` where the configured answer model (LECTERN_LLM_MODEL) is that one.
    let bot: string;
    if (server) {
      const res = await fetch(`${url}/bots`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt_template: 'x', llm: { provider: 'local', model: 'stories260k' } }),
      });
      bot = (await res.json()).bot_id;
    } else {
      const made = await lecternDone(['bot', 'create', '--prompt', 'x', '--json'], {
        cwd,
        env: cliEnv({ LECTERN_LLM_MODEL: 'stories260k' }),
      });
      expect(made.code, made.stderr).toBe(0);
      const created = JSON.parse(made.stdout);
      expect(created.llm).toEqual({ provider: 'local', model: 'stories260k' });
      bot = created.bot_id;
    }
    const r = await done(['chat', bot]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "lectern chat: the bot's answer model stories260k is not installed (hint: lectern models pull stories260k, or offline: lectern models import stories260k FILE)",
    );
    // A command that failed lets go of the folder too.
    if (!server) expect(existsSync(join(dataDir, 'lectern.lock'))).toBe(false);
  });

  it('a link that cannot be read fails with its reason', async () => {
    const bot = await createBot('links');
    const r = await done(['add-doc', bot, `${web.url}/missing`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/lectern add-doc: no link could be read: .*404/);
  });
}

describe('without a server: each command opens the data folder itself', () => {
  scenario('without a server');
});

describe('with `lectern serve` running: commands go through it', () => {
  scenario('with a server');
});

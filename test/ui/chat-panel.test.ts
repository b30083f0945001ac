import { describe, expect, it } from 'vitest';
import { enc, json } from '../helpers/app.js';
import { indexedJob } from '../helpers/chat-flow.js';
import { TOPICS_MD, waitForIngest, startServerWithModel } from '../helpers/embed-flow.js';
import { sendQuestion } from './helpers/chat-pane.js';
import { useDesk } from './helpers/desk.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The one chat panel, for a job's chat and for a bot's, in Debian's chromium against the real server: real
// MiniLM embeddings and the extractive reader (real code, no model) for answers with citations. Past
// conversations are listed from the server, come back after a reload with their turns and ratings, and are
// renamed and deleted there; a failure from the server is said in the panel.

const shots = screenshotDir('chat-panel');
const LONG = { timeout: 60_000 };
let jobId = '';
let botId = '';
const desk = useDesk({
  start: () => startServerWithModel(),
  seed: async (server) => {
    jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
    botId = (
      await json(await server.call('POST', '/bots', { json: { name: 'Topics', llm: { provider: 'extractive' } } }))
    ).bot_id;
    const form = new FormData();
    form.append('file', new Blob([enc(TOPICS_MD) as Uint8Array<ArrayBuffer>]), 'topics.md');
    const added = await json(await server.call('POST', `/bots/${botId}/documents/upload`, { body: form }));
    expect((await waitForIngest(server, added.job_id)).ingest_status).toBe('success');
  },
  timeout: 300_000,
});
const get = async (path: string) => json(await desk.server.call('GET', path));

interface Kind {
  name: 'job' | 'bot';
  address: () => string;
  /** GET of the owner's conversations. */
  listPath: () => string;
  /** GET of a conversation's turns: answers 404 once it is deleted. */
  turnsPath: (id: string) => string;
  /** Where each answer's citations are drawn. */
  cited: string;
}

const KINDS: Kind[] = [
  {
    name: 'job',
    address: () => `#/jobs/${jobId}/search`,
    listPath: () => `/jobs/${jobId}/conversations`,
    turnsPath: (id) => `/chat/sessions/${id}`,
    cited: '.sources li.source.cited',
  },
  {
    name: 'bot',
    address: () => `#/bots/${botId}`,
    listPath: () => `/bots/${botId}/conversations`,
    turnsPath: (id) => `/chats/${id}`,
    cited: '.citations li.citation',
  },
];

const Q = {
  lava: 'What erupts from a volcano?',
  bread: 'How is bread baked?',
  chess: 'Which defence answers the king pawn?',
};

/** Opens (or reloads) the owner's page and waits until the panel has read its conversations and the open one. */
async function openPanel(kind: Kind, reload = false): Promise<void> {
  if (reload) await desk.page.reload();
  else await desk.page.goto(`${desk.server.url}/${kind.address()}`);
  await desk.page.waitForSelector('.panel.chat[data-ready=true]');
}

/** Asks in the panel and waits until the answer is complete; the job's chat answers with quotes (no model). */
async function ask(question: string) {
  if (await desk.page.locator('.panel.chat select.provider').count())
    await desk.page.selectOption('.panel.chat select.provider', 'extractive');
  const turn = await sendQuestion(desk.page, '.panel.chat', question);
  await expect.poll(() => turn.getAttribute('data-status'), LONG).toBe('complete');
  return turn;
}

const openId = async () => {
  const open = desk.page.locator('.panel.chat .conversation.selected');
  await open.waitFor();
  return (await open.getAttribute('data-conversation')) ?? '';
};
const listed = () =>
  desk.page.$$eval('.panel.chat .conversation', (items) =>
    items.map((li) => li.getAttribute('data-conversation') ?? ''),
  );
const questions = () =>
  desk.page.$$eval('.panel.chat .chat-log .turn .question', (qs) => qs.map((q) => q.textContent ?? ''));
const row = (id: string) => desk.page.locator(`.panel.chat .conversation[data-conversation="${id}"]`);

describe.each(KINDS)('the chat panel of a $name', (kind) => {
  let first = '';
  let second = '';

  it('asks two questions in one conversation, then starts a second one', async () => {
    await openPanel(kind);
    expect(await desk.page.locator('.panel.chat .conversation-none').count()).toBe(1);
    const lava = await ask(Q.lava);
    expect(await lava.locator('.answer').textContent()).toMatch(/lava/i);
    await ask(Q.bread);
    first = await openId();
    expect(await questions()).toEqual([Q.lava, Q.bread]);
    await desk.page.click('.panel.chat button.new-conversation');
    await expect.poll(() => desk.page.locator('.panel.chat .chat-log .turn').count()).toBe(0);
    await ask(Q.chess);
    await expect.poll(() => openId()).not.toBe(first);
    second = await openId();
    expect(await questions()).toEqual([Q.chess]);
    const server = (await get(kind.listPath())).conversations as { conversation_id: string; message_count: number }[];
    expect(server.map((c) => [c.conversation_id, c.message_count]).sort()).toEqual(
      [
        [first, 2],
        [second, 1],
      ].sort(),
    );
    await shot(desk.page, shots, `${kind.name}-1-two-conversations`);
  });

  it('rates an answer and, after a reload, lists both conversations and opens each with its turns, citations and rating', async () => {
    await desk.page.locator(`.panel.chat .turn .feedback button.thumb-up`).click();
    await expect.poll(() => desk.page.locator('.panel.chat .turn .feedback').getAttribute('data-rating')).toBe('up');
    await openPanel(kind, true);
    // Newest first, the newest open; each named by its first question, with its size and when it was last used.
    expect(await listed()).toEqual([second, first]);
    expect(await openId()).toBe(second);
    expect(await questions()).toEqual([Q.chess]);
    expect(await desk.page.locator('.panel.chat .turn .feedback').getAttribute('data-rating')).toBe('up');
    expect(await desk.page.locator('.panel.chat .turn button.thumb-up').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => row(first).locator('.conversation-open').textContent()).toBe(Q.lava);
    expect(await row(second).locator('.conversation-open').textContent()).toBe(Q.chess);
    expect(await row(first).locator('.conversation-turns').textContent()).toBe('2 turns');
    expect(await row(second).locator('.conversation-turns').textContent()).toBe('1 turn');
    expect(await row(first).locator('time').getAttribute('datetime')).toMatch(/^\d{4}-/);
    await row(first).locator('.conversation-open').click();
    await expect.poll(() => questions()).toEqual([Q.lava, Q.bread]);
    const turns = desk.page.locator('.panel.chat .chat-log .turn');
    for (const i of [0, 1]) {
      expect(await turns.nth(i).getAttribute('data-status')).toBe('complete');
      expect((await turns.nth(i).locator('.answer').textContent())?.trim().length).toBeGreaterThan(10);
      expect(await turns.nth(i).locator(kind.cited).count()).toBeGreaterThan(0);
    }
    expect(await turns.nth(0).locator('.answer').textContent()).toMatch(/lava/i);
    // The open conversation is in the address: a reload comes back to it, not to the newest.
    await openPanel(kind, true);
    expect(await openId()).toBe(first);
    expect(await questions()).toEqual([Q.lava, Q.bread]);
    await shot(desk.page, shots, `${kind.name}-2-after-reload`);
  });

  it('renames a conversation on the server; the name holds after a reload', async () => {
    await row(first).locator('button.conversation-rename').click();
    const box = row(first).locator('input.rename-box');
    await box.fill('Volcanoes and bread');
    await box.press('Enter');
    await expect.poll(() => row(first).locator('.conversation-open').textContent()).toBe('Volcanoes and bread');
    const onServer = (await get(kind.listPath())).conversations.find(
      (c: { conversation_id: string }) => c.conversation_id === first,
    );
    expect(onServer.title).toBe('Volcanoes and bread');
    await openPanel(kind, true);
    expect(await row(first).locator('.conversation-open').textContent()).toBe('Volcanoes and bread');
    await shot(desk.page, shots, `${kind.name}-3-renamed`);
  });

  it('deletes a conversation only once confirmed; after a reload it is gone, as on the server', async () => {
    await row(second).locator('button.conversation-delete').click();
    await desk.page.waitForSelector('dialog[open]');
    await desk.page.click('dialog button[data-value=false]');
    expect(await listed()).toEqual([second, first]);
    await row(second).locator('button.conversation-delete').click();
    await desk.page.click('dialog button[data-value=true]');
    await expect.poll(() => listed()).toEqual([first]);
    await openPanel(kind, true);
    expect(await listed()).toEqual([first]);
    expect(
      (await get(kind.listPath())).conversations.map((c: { conversation_id: string }) => c.conversation_id),
    ).toEqual([first]);
    expect((await desk.server.call('GET', kind.turnsPath(second))).status).toBe(404);
    expect(await questions()).toEqual([Q.lava, Q.bread]);
    await shot(desk.page, shots, `${kind.name}-4-deleted`);
  });

  it("says the server's error in the panel: a conversation deleted elsewhere can be neither asked in nor renamed", async () => {
    // Deleted through the API while the panel still shows it.
    expect((await desk.server.call('DELETE', `/conversations/${first}`)).status).toBe(200);
    if (await desk.page.locator('.panel.chat select.provider').count())
      await desk.page.selectOption('.panel.chat select.provider', 'extractive');
    await desk.page.fill('.panel.chat textarea[name=question]', 'Is it still there?');
    await desk.page.click('.panel.chat button.ask');
    const turn = desk.page.locator('.panel.chat .turn').last();
    await expect.poll(() => turn.getAttribute('data-status'), LONG).toBe('failed');
    expect(await turn.locator('.turn-note').textContent()).toMatch(new RegExp(`^Error: .*${first}`));
    // The list follows the server, and the next question starts a new conversation instead of failing again.
    await expect.poll(() => listed()).toEqual([]);
    expect(await desk.page.textContent('.panel.chat .chat-notice')).toContain('the next question starts a new one');
    await shot(desk.page, shots, `${kind.name}-5-error-asking`);
    const again = await ask(Q.lava);
    expect(await again.locator('.answer').textContent()).toMatch(/lava/i);
    const third = await openId();
    expect(third).not.toBe(first);

    expect((await desk.server.call('DELETE', `/conversations/${third}`)).status).toBe(200);
    await row(third).locator('button.conversation-rename').click();
    await row(third).locator('input.rename-box').fill('Gone');
    await row(third).locator('input.rename-box').press('Enter');
    await expect
      .poll(() => desk.page.textContent('.panel.chat .chat-notice'))
      .toBe(`Could not rename the conversation: conversation ${third} does not exist`);
    await expect.poll(() => listed()).toEqual([]);
    await shot(desk.page, shots, `${kind.name}-6-error-renaming`);
  });
});

describe("a bot's answers held for approval", () => {
  it('holds an answer until it is approved here, also after a reload', async () => {
    await openPanel(KINDS[1]!);
    await desk.page.click('.panel.chat button.new-conversation');
    await desk.page.check('.panel.chat input.hold');
    await desk.page.fill('.panel.chat textarea[name=question]', Q.lava);
    await desk.page.click('.panel.chat button.ask');
    const held = desk.page.locator('.panel.chat .turn').last();
    await expect.poll(() => held.getAttribute('data-status'), LONG).toBe('pending_review');
    expect(await held.locator('.answer').textContent()).toMatch(/lava/i);
    expect(await held.locator('.feedback').count()).toBe(0);
    const chatId = await openId();
    // The held answer comes back from the server as it was left.
    await openPanel(KINDS[1]!, true);
    const turn = desk.page.locator('.panel.chat .turn').last();
    expect(await turn.getAttribute('data-status')).toBe('pending_review');
    await turn.locator('button.approve-answer').click();
    await expect.poll(() => turn.locator('.badge.resumed').textContent()).toMatch(/^approved by /);
    expect(await turn.getAttribute('data-status')).toBe('complete');
    expect(await turn.locator('.feedback button.thumb-up').count()).toBe(1);
    const stored = (await get(`/chats/${chatId}`)).messages[0];
    expect(stored).toMatchObject({ status: 'complete', review: { action: 'approve' } });
    expect(await turn.locator('.answer').textContent()).toBe(stored.answer);
    await shot(desk.page, shots, 'bot-held-approved');
  });
});

describe('a bot that does not exist', () => {
  it("says the server's message in the chat panel instead of leaving it blank", async () => {
    await desk.page.goto(`${desk.server.url}/#/bots/no-such-bot`);
    await desk.page.waitForSelector('.panel.chat[data-ready=true]');
    expect(await desk.page.textContent('.panel.chat .chat-notice')).toBe(
      'Could not read the conversations: bot no-such-bot does not exist',
    );
  });
});

describe('the page', () => {
  it('broke nowhere', () => {
    expect(desk.logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, json, listPage, startServer, type TestServer } from '../helpers/app.js';
import { installTestModel, TEST_MODEL } from '../helpers/embed-flow.js';
import { launchChromium, watchConsole } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { recordRequests, screenshotDir, shot } from './helpers/screens.js';

// End to end in Debian's chromium against the real server (real SQLite, real worker pool) on a real PDF:
// the whole review from upload to the exported zip, as one reviewer at the keyboard while another client
// changes the same blocks over plain HTTP.

const FIXTURE = join(fixturesDir, 'pdfs', 'survival-tiedtimes.pdf');
const shots = screenshotDir('review-desk');
let server: TestServer;
let browser: Browser;
let page: Page;
let requests: string[];
let logs: string[];
let jobId = '';

const blockAt = async (n: number) => {
  const list = await listPage(server, `/jobs/${jobId}/blocks?skip=${n}&limit=1`);
  return list.items[0] as {
    block_id: string;
    version: number;
    text: string;
    edited_text: string | null;
    status: string;
  };
};
const selected = () => page.locator('.vlist .block-row.selected').getAttribute('data-block');

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer({ settings: { embedding_model: TEST_MODEL } });
  await installTestModel(server.dataDir);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  requests = recordRequests(page);
  logs = watchConsole(page);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the review desk in a browser', () => {
  it('asks for the API key once per tab', async () => {
    await page.goto(`${server.url}/`);
    await page.fill('input[name=api-key]', 'wrong');
    await page.click('.key-form button[type=submit]');
    await expect.poll(() => page.textContent('.key-form .error')).toContain('not accepted');
    await page.fill('input[name=api-key]', server.key);
    await page.click('.key-form button[type=submit]');
    await page.waitForSelector('section.library');
    await page.reload();
    // Same tab: the key is remembered for the session, no form again.
    await page.waitForSelector('section.library');
    expect(await page.locator('.key-form').count()).toBe(0);
  });

  it('uploads a fixture PDF and shows it reaching review', async () => {
    await page.setInputFiles('section.library input[type=file]', FIXTURE);
    await page.waitForSelector('.upload-log li.ok');
    jobId = (await page.locator('table.jobs tr[data-job]').first().getAttribute('data-job')) ?? '';
    expect(jobId).not.toBe('');
    await page.waitForSelector(`tr[data-job="${jobId}"][data-status=ready_for_review]`, { timeout: 60_000 });
    await shot(page, shots, '1-library');
  });

  it('takes several files dropped at once, filters by status and deletes with confirmation', async () => {
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['# One\n\nThe first dropped file.\n'], 'dropped-one.md', { type: 'text/markdown' }));
      dt.items.add(new File(['# Two\n\nThe second dropped file.\n'], 'dropped-two.md', { type: 'text/markdown' }));
      const target = document.querySelector('section.library')!;
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => page.locator('.upload-log li.ok').count()).toBe(3);
    const two = page.locator('tr[data-job]', { hasText: 'dropped-two.md' });
    await two.waitFor();
    await page.selectOption('select.status-filter', 'failed');
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(0);
    await page.selectOption('select.status-filter', '');
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(3);
    await two.locator('button.danger').click();
    await page.click('dialog button[data-value=true]');
    await expect.poll(() => page.locator('tr[data-job]').count()).toBe(2);
    expect(await page.locator('tr[data-job]', { hasText: 'dropped-two.md' }).count()).toBe(0);
  });

  it('opens the job with the page, its boxes and the block list in step', async () => {
    await page.click(`tr[data-job="${jobId}"] a.button`);
    await page.waitForSelector('.review[data-loaded=true]');
    // The server renders pages: the image lies under the boxes.
    await page.waitForSelector('.page-image:not([hidden])');
    const first = await blockAt(0);
    await expect.poll(() => selected()).toBe(first.block_id);
    expect(await page.locator(`.page-sheet .box.selected[data-block="${first.block_id}"]`).count()).toBe(1);
    await page.keyboard.press('j');
    const second = await blockAt(1);
    await expect.poll(() => selected()).toBe(second.block_id);
    // Clicking a box on the page selects its block in the list.
    await page.click(`.page-sheet .box[data-block="${first.block_id}"]`);
    await expect.poll(() => selected()).toBe(first.block_id);
    await shot(page, shots, '2-review');
  });

  it('edits a block with the keyboard', async () => {
    await page.keyboard.press('j');
    const target = await blockAt(1);
    await page.keyboard.press('e');
    await page.waitForSelector('.block-row.editing textarea:focus');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('Corrected by the reviewer at the keyboard.');
    await shot(page, shots, '3-edit');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector(`.block-row[data-block="${target.block_id}"] .badge.status-edited`);
    const after = await blockAt(1);
    expect(after).toMatchObject({
      status: 'edited',
      edited_text: 'Corrected by the reviewer at the keyboard.',
      version: target.version + 1,
    });
  });

  it('undoes the last action', async () => {
    await page.keyboard.press('j');
    const target = await blockAt(2);
    await expect.poll(() => selected()).toBe(target.block_id);
    await page.keyboard.press('a');
    await expect.poll(async () => (await blockAt(2)).status).toBe('approved');
    await page.keyboard.press('u');
    await expect.poll(async () => (await blockAt(2)).status).toBe('pending');
  });

  it('meets the conflict dialog and keeps mine over a change made by another client', async () => {
    // Approving moved the selection on to the next block, and undo left it there.
    const target = await blockAt(3);
    await expect.poll(() => selected()).toBe(target.block_id);
    const theirs = await server.call('PATCH', `/jobs/${jobId}/blocks/${target.block_id}`, {
      json: { version: target.version, edited_text: 'Their correction.' },
      headers: { 'x-reviewer': 'grace' },
    });
    expect(theirs.status).toBe(200);
    await page.keyboard.press('a');
    await page.waitForSelector('dialog.conflict[open]');
    // Their side reads as their text, words they removed struck out; the dialog names them.
    const theirText = await page.$eval('dialog.conflict .conflict-side.theirs .conflict-text', (el) => {
      const copy = el.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('del').forEach((d) => d.remove());
      return copy.textContent;
    });
    expect(theirText).toBe('Their correction.');
    expect(await page.textContent('dialog.conflict .conflict-author')).toBe('grace');
    await shot(page, shots, '4-conflict');
    await page.click('dialog.conflict button[data-value=mine]');
    await expect.poll(async () => (await blockAt(3)).status).toBe('approved');
    expect((await blockAt(3)).edited_text).toBe('Their correction.');
  });

  it('merges two edits of different words of the same block', async () => {
    const target = await blockAt(4);
    await expect.poll(() => selected()).toBe(target.block_id);
    const words = target.text.split(' ');
    expect(words.length).toBeGreaterThan(3);
    const theirText = ['THEIRS', ...words.slice(1)].join(' ');
    const myText = [...words.slice(0, -1), 'MINE'].join(' ');
    await server.call('PATCH', `/jobs/${jobId}/blocks/${target.block_id}`, {
      json: { version: target.version, edited_text: theirText },
    });
    await page.keyboard.press('e');
    await page.waitForSelector('.block-row.editing textarea:focus');
    await page.keyboard.press('Control+a');
    await page.keyboard.type(myText);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('dialog.conflict[open]');
    const merged = ['THEIRS', ...words.slice(1, -1), 'MINE'].join(' ');
    expect(await page.inputValue('dialog.conflict .merge-text')).toBe(merged);
    await page.click('dialog.conflict button[data-value=merge]');
    await expect.poll(async () => (await blockAt(4)).edited_text).toBe(merged);
  });

  it('approves a page with one key, then everything pending', async () => {
    await page.keyboard.press('Shift+A');
    await expect
      .poll(async () => (await listPage(server, `/jobs/${jobId}/blocks?page=1&status=pending`)).total)
      .toBe(0);
    await page.click('.review-toolbar .approve-all');
    await page.click('dialog button[data-value=true]');
    await expect
      .poll(async () => (await json(await server.call('GET', `/jobs/${jobId}`))).review.blocks.pending, {
        timeout: 20_000,
      })
      .toBe(0);
    await expect.poll(() => page.textContent('.review-toolbar .counts')).toMatch(/^0 pending/);
    await shot(page, shots, '5-review-approved');
  });

  it('lists chunks with stale markers and rechunks them', async () => {
    await page.click('nav.tabs a[href$="/chunks"]');
    await page.waitForSelector('.chunks[data-loaded=true]');
    expect(await page.locator('.chunk-row .stale').count()).toBeGreaterThan(0);
    await shot(page, shots, '6-chunks');
    await page.click('button.rechunk');
    await expect.poll(() => page.locator('.chunk-row .stale').count()).toBe(0);
    // A and R review chunks as they do blocks.
    const first = (await listPage(server, `/jobs/${jobId}/chunks?limit=1`)).items[0];
    await page.keyboard.press('a');
    await expect
      .poll(async () => (await listPage(server, `/jobs/${jobId}/chunks?limit=1`)).items[0].status)
      .toBe('approved');
    expect(first.status).toBe('pending');
  });

  it('finalizes with the chosen policy and downloads the export zip', async () => {
    await page.click('nav.tabs a[href$="/finalize"]');
    await page.waitForSelector('.finalize[data-status=ready_for_review]');
    await page.check('input[name=policy][value=auto_approve_pending]');
    await page.click('button.finalize-button');
    await page.click('dialog.confirm-finalize button[data-value=true]');
    await page.waitForSelector('.finalize[data-status=finalized]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button.export-button')]);
    const saved = join(shots, 'export.zip');
    await download.saveAs(saved);
    await shot(page, shots, '7-finalize-export');
    const files = unzipSync(new Uint8Array(readFileSync(saved)));
    const names = Object.keys(files).map((n) => n.split('/').pop());
    expect(names).toEqual(expect.arrayContaining(['document.md', 'blocks.jsonl', 'chunks.jsonl', 'manifest.json']));
    const md = strFromU8(files[Object.keys(files).find((n) => n.endsWith('document.md'))!]!);
    expect(md).toContain('Corrected by the reviewer at the keyboard.');
    expect(md).toContain('Their correction.');
    expect(md).toMatch(/THEIRS .* MINE/);
  });

  it('embeds with the chosen model, then finds the corrected text and opens its source block', async () => {
    await page.waitForSelector(`select.embed-model option[value="${TEST_MODEL}"]:not([disabled])`, {
      state: 'attached',
    });
    await page.selectOption('select.embed-model', TEST_MODEL);
    await page.click('button.embed-button');
    await page.waitForSelector('.finalize[data-status=indexed]', { timeout: 60_000 });
    expect(await page.textContent('.embed-status')).toMatch(/Indexed: \d+ vectors/);
    await shot(page, shots, '8-indexed');
    await page.click('nav.tabs a[href$="/search"]');
    await page.fill('.search input[type=search]', 'corrected by the reviewer at the keyboard');
    await page.press('.search input[type=search]', 'Enter');
    await page.waitForSelector('.results .source');
    const href = (await page.getAttribute('.results .source a', 'href')) ?? '';
    const first = decodeURIComponent(/block=([^&]+)/.exec(href)?.[1] ?? '');
    expect(first).toMatch(/^b\d+$/);
    expect(await page.textContent('.results .source .source-text')).toContain(
      'Corrected by the reviewer at the keyboard.',
    );
    await shot(page, shots, '9-search');
    await page.click('.results .source a');
    await page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selected()).toBe(first);
    expect(await page.locator(`.page-sheet .box.selected[data-block="${first}"]`).count()).toBe(1);
  });

  it('answers a question with cited sources, held for approval, and opens a source on its block', async () => {
    await page.click('nav.tabs a[href$="/search"]');
    await page.selectOption('.chat select.provider', 'extractive');
    await page.check('.chat input.hold');
    await page.fill('.chat textarea', 'What did the reviewer correct at the keyboard?');
    await page.press('.chat textarea', 'Enter');
    const held = page.locator('.chat .turn[data-status=pending_review]');
    await held.waitFor({ timeout: 30_000 });
    // Approved, the turn is complete: found by its id from here on.
    const turn = page.locator(`.chat .turn[data-message="${await held.getAttribute('data-message')}"]`);
    expect((await turn.locator('.answer').textContent())?.length).toBeGreaterThan(10);
    expect(await turn.locator('.source.cited').count()).toBeGreaterThan(0);
    await shot(page, shots, '10-chat');
    await turn.locator('button.approve-answer').click();
    await expect.poll(() => turn.locator('.badge.resumed').textContent()).toMatch(/^approved by /);
    const href = (await turn.locator('.source.cited a').first().getAttribute('href')) ?? '';
    const block = decodeURIComponent(/block=([^&]+)/.exec(href)?.[1] ?? '');
    expect(block).toMatch(/^b\d+$/);
    await turn.locator('.source.cited a').first().click();
    await page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selected()).toBe(block);
  });

  it('shows the audit trail as a timeline per block', async () => {
    const edited = await blockAt(4);
    await page.click('nav.tabs a[href$="/audit"]');
    await page.waitForSelector('.audit[data-loaded=true]');
    const timeline = page.locator(`.timeline[data-entity="${edited.block_id}"]`);
    expect(await timeline.locator('.event').count()).toBeGreaterThanOrEqual(2);
    expect(await timeline.textContent()).toContain('MINE');
    await shot(page, shots, '11-audit');
  });

  it('asks for the key again when the server stops accepting it', async () => {
    // As after a restart with another key: the next API answer is a 401.
    await page.route(
      `${server.url}/jobs?*`,
      (route) =>
        route.fulfill({
          status: 401,
          json: { error: { code: 'UNAUTHORIZED', message: 'the X-API-Key header does not match' } },
        }),
      { times: 1 },
    );
    await page.evaluate(() => (location.hash = '#/'));
    await page.waitForSelector('.key-form');
    await page.fill('input[name=api-key]', server.key);
    await page.click('.key-form button[type=submit]');
    await page.waitForSelector(`tr[data-job="${jobId}"]`);
  });

  it('never asked anything of a host other than the local server', () => {
    const foreign = requests.filter(
      (u) => !u.startsWith(`${server.url}/`) && !u.startsWith('blob:') && !u.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});

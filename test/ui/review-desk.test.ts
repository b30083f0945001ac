import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fixturesDir, json, listPage } from '../helpers/app.js';
import { startServerWithModel, TEST_MODEL } from '../helpers/embed-flow.js';
import { useDesk } from './helpers/desk.js';
import { selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// End to end in Debian's chromium against the real server (real SQLite, real worker pool) on a real PDF:
// the whole review from upload to the exported zip, as one reviewer at the keyboard while another client
// changes the same blocks over plain HTTP.

const FIXTURE = join(fixturesDir, 'pdfs', 'survival-tiedtimes.pdf');
const shots = screenshotDir('review-desk');
let jobId = '';
// The first test signs in through the key form itself.
const desk = useDesk({ start: () => startServerWithModel(), page: { acceptDownloads: true }, signIn: false });

const blockAt = async (n: number) => {
  const list = await listPage(desk.server, `/jobs/${jobId}/blocks?skip=${n}&limit=1`);
  return list.items[0] as {
    block_id: string;
    version: number;
    text: string;
    edited_text: string | null;
    status: string;
  };
};
const selected = () => selectedBlock(desk.page);

describe('the review desk in a browser', () => {
  it('asks for the API key once per tab', async () => {
    await desk.page.goto(`${desk.server.url}/`);
    await desk.page.fill('input[name=api-key]', 'wrong');
    await desk.page.click('.key-form button[type=submit]');
    await expect.poll(() => desk.page.textContent('.key-form .error')).toContain('not accepted');
    await desk.page.fill('input[name=api-key]', desk.server.key);
    await desk.page.click('.key-form button[type=submit]');
    await desk.page.waitForSelector('section.library');
    await desk.page.reload();
    // Same tab: the key is remembered for the session, no form again.
    await desk.page.waitForSelector('section.library');
    expect(await desk.page.locator('.key-form').count()).toBe(0);
  });

  it('uploads a fixture PDF and shows it reaching review', async () => {
    await desk.page.setInputFiles('section.library input[type=file]', FIXTURE);
    await desk.page.waitForSelector('.upload-log li.ok');
    jobId = (await desk.page.locator('table.jobs tr[data-job]').first().getAttribute('data-job')) ?? '';
    expect(jobId).not.toBe('');
    await desk.page.waitForSelector(`tr[data-job="${jobId}"][data-status=ready_for_review]`, { timeout: 60_000 });
    await shot(desk.page, shots, '1-library');
  });

  it('takes several files dropped at once, filters by status and deletes with confirmation', async () => {
    await desk.page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['# One\n\nThe first dropped file.\n'], 'dropped-one.md', { type: 'text/markdown' }));
      dt.items.add(new File(['# Two\n\nThe second dropped file.\n'], 'dropped-two.md', { type: 'text/markdown' }));
      const target = document.querySelector('section.library')!;
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => desk.page.locator('.upload-log li.ok').count()).toBe(3);
    const two = desk.page.locator('tr[data-job]', { hasText: 'dropped-two.md' });
    await two.waitFor();
    await desk.page.selectOption('select.status-filter', 'failed');
    await expect.poll(() => desk.page.locator('tr[data-job]').count()).toBe(0);
    await desk.page.selectOption('select.status-filter', '');
    await expect.poll(() => desk.page.locator('tr[data-job]').count()).toBe(3);
    await two.locator('button.danger').click();
    await desk.page.click('dialog button[data-value=true]');
    await expect.poll(() => desk.page.locator('tr[data-job]').count()).toBe(2);
    expect(await desk.page.locator('tr[data-job]', { hasText: 'dropped-two.md' }).count()).toBe(0);
  });

  it('opens the job with the page, its boxes and the block list in step', async () => {
    await desk.page.click(`tr[data-job="${jobId}"] a.button`);
    await desk.page.waitForSelector('.review[data-loaded=true]');
    // The server renders pages: the image lies under the boxes.
    await desk.page.waitForSelector('.page-image:not([hidden])');
    const first = await blockAt(0);
    await expect.poll(() => selected()).toBe(first.block_id);
    expect(await desk.page.locator(`.page-sheet .box.selected[data-block="${first.block_id}"]`).count()).toBe(1);
    await desk.page.keyboard.press('j');
    const second = await blockAt(1);
    await expect.poll(() => selected()).toBe(second.block_id);
    // Clicking a box on the page selects its block in the list.
    await desk.page.click(`.page-sheet .box[data-block="${first.block_id}"]`);
    await expect.poll(() => selected()).toBe(first.block_id);
    await shot(desk.page, shots, '2-review');
  });

  it('edits a block with the keyboard', async () => {
    await desk.page.keyboard.press('j');
    const target = await blockAt(1);
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing textarea:focus');
    await desk.page.keyboard.press('Control+a');
    await desk.page.keyboard.type('Corrected by the reviewer at the keyboard.');
    await shot(desk.page, shots, '3-edit');
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector(`.block-row[data-block="${target.block_id}"] .badge.status-edited`);
    const after = await blockAt(1);
    expect(after).toMatchObject({
      status: 'edited',
      edited_text: 'Corrected by the reviewer at the keyboard.',
      version: target.version + 1,
    });
  });

  it('undoes the last action', async () => {
    await desk.page.keyboard.press('j');
    const target = await blockAt(2);
    await expect.poll(() => selected()).toBe(target.block_id);
    await desk.page.keyboard.press('a');
    await expect.poll(async () => (await blockAt(2)).status).toBe('approved');
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await blockAt(2)).status).toBe('pending');
  });

  it('meets the conflict dialog and keeps mine over a change made by another client', async () => {
    // Approving moved the selection on to the next block, and undo left it there.
    const target = await blockAt(3);
    await expect.poll(() => selected()).toBe(target.block_id);
    const theirs = await desk.server.call('PATCH', `/jobs/${jobId}/blocks/${target.block_id}`, {
      json: { version: target.version, edited_text: 'Their correction.' },
      headers: { 'x-reviewer': 'grace' },
    });
    expect(theirs.status).toBe(200);
    await desk.page.keyboard.press('a');
    await desk.page.waitForSelector('dialog.conflict[open]');
    // Their side reads as their text, words they removed struck out; the dialog names them.
    const theirText = await desk.page.$eval('dialog.conflict .conflict-side.theirs .conflict-text', (el) => {
      const copy = el.cloneNode(true) as HTMLElement;
      copy.querySelectorAll('del').forEach((d) => d.remove());
      return copy.textContent;
    });
    expect(theirText).toBe('Their correction.');
    expect(await desk.page.textContent('dialog.conflict .conflict-author')).toBe('grace');
    await shot(desk.page, shots, '4-conflict');
    await desk.page.click('dialog.conflict button[data-value=mine]');
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
    await desk.server.call('PATCH', `/jobs/${jobId}/blocks/${target.block_id}`, {
      json: { version: target.version, edited_text: theirText },
    });
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing textarea:focus');
    await desk.page.keyboard.press('Control+a');
    await desk.page.keyboard.type(myText);
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector('dialog.conflict[open]');
    const merged = ['THEIRS', ...words.slice(1, -1), 'MINE'].join(' ');
    expect(await desk.page.inputValue('dialog.conflict .merge-text')).toBe(merged);
    await desk.page.click('dialog.conflict button[data-value=merge]');
    await expect.poll(async () => (await blockAt(4)).edited_text).toBe(merged);
  });

  it('approves a page with one key, then everything pending', async () => {
    await desk.page.keyboard.press('Shift+A');
    await expect
      .poll(async () => (await listPage(desk.server, `/jobs/${jobId}/blocks?page=1&status=pending`)).total)
      .toBe(0);
    await desk.page.click('.review-toolbar .approve-all');
    await desk.page.click('dialog button[data-value=true]');
    await expect
      .poll(async () => (await json(await desk.server.call('GET', `/jobs/${jobId}`))).review.blocks.pending, {
        timeout: 20_000,
      })
      .toBe(0);
    await expect.poll(() => desk.page.textContent('.review-toolbar .counts')).toMatch(/^0 pending/);
    await shot(desk.page, shots, '5-review-approved');
  });

  it('lists chunks with stale markers and rechunks them', async () => {
    await desk.page.click('nav.tabs a[href$="/chunks"]');
    await desk.page.waitForSelector('.chunks[data-loaded=true]');
    expect(await desk.page.locator('.chunk-row .stale').count()).toBeGreaterThan(0);
    await shot(desk.page, shots, '6-chunks');
    await desk.page.click('button.rechunk');
    await expect.poll(() => desk.page.locator('.chunk-row .stale').count()).toBe(0);
    // A and R review chunks as they do blocks.
    const first = (await listPage(desk.server, `/jobs/${jobId}/chunks?limit=1`)).items[0];
    await desk.page.keyboard.press('a');
    await expect
      .poll(async () => (await listPage(desk.server, `/jobs/${jobId}/chunks?limit=1`)).items[0].status)
      .toBe('approved');
    expect(first.status).toBe('pending');
  });

  it('finalizes with the chosen policy and downloads the export zip', async () => {
    await desk.page.click('nav.tabs a[href$="/finalize"]');
    await desk.page.waitForSelector('.finalize[data-status=ready_for_review]');
    await desk.page.check('input[name=policy][value=auto_approve_pending]');
    await desk.page.click('button.finalize-button');
    await desk.page.click('dialog.confirm-finalize button[data-value=true]');
    await desk.page.waitForSelector('.finalize[data-status=finalized]');
    const [download] = await Promise.all([desk.page.waitForEvent('download'), desk.page.click('button.export-button')]);
    const saved = join(shots, 'export.zip');
    await download.saveAs(saved);
    await shot(desk.page, shots, '7-finalize-export');
    const files = unzipSync(new Uint8Array(readFileSync(saved)));
    const names = Object.keys(files).map((n) => n.split('/').pop());
    expect(names).toEqual(expect.arrayContaining(['document.md', 'blocks.jsonl', 'chunks.jsonl', 'manifest.json']));
    const md = strFromU8(files[Object.keys(files).find((n) => n.endsWith('document.md'))!]!);
    expect(md).toContain('Corrected by the reviewer at the keyboard.');
    expect(md).toContain('Their correction.');
    expect(md).toMatch(/THEIRS .* MINE/);
  });

  it('embeds with the chosen model, then finds the corrected text and opens its source block', async () => {
    await desk.page.waitForSelector(`select.embed-model option[value="${TEST_MODEL}"]:not([disabled])`, {
      state: 'attached',
    });
    await desk.page.selectOption('select.embed-model', TEST_MODEL);
    await desk.page.click('button.embed-button');
    await desk.page.waitForSelector('.finalize[data-status=indexed]', { timeout: 60_000 });
    expect(await desk.page.textContent('.embed-status')).toMatch(/Indexed: \d+ vectors/);
    await shot(desk.page, shots, '8-indexed');
    await desk.page.click('nav.tabs a[href$="/search"]');
    await desk.page.fill('.search input[type=search]', 'corrected by the reviewer at the keyboard');
    await desk.page.press('.search input[type=search]', 'Enter');
    await desk.page.waitForSelector('.results .source');
    const href = (await desk.page.getAttribute('.results .source a', 'href')) ?? '';
    const first = decodeURIComponent(/block=([^&]+)/.exec(href)?.[1] ?? '');
    expect(first).toMatch(/^b\d+$/);
    expect(await desk.page.textContent('.results .source .source-text')).toContain(
      'Corrected by the reviewer at the keyboard.',
    );
    await shot(desk.page, shots, '9-search');
    await desk.page.click('.results .source a');
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selected()).toBe(first);
    expect(await desk.page.locator(`.page-sheet .box.selected[data-block="${first}"]`).count()).toBe(1);
  });

  it('answers a question with cited sources, held for approval, and opens a source on its block', async () => {
    await desk.page.click('nav.tabs a[href$="/search"]');
    await desk.page.selectOption('.chat select.provider', 'extractive');
    await desk.page.check('.chat input.hold');
    await desk.page.fill('.chat textarea', 'What did the reviewer correct at the keyboard?');
    await desk.page.press('.chat textarea', 'Enter');
    const held = desk.page.locator('.chat .turn[data-status=pending_review]');
    await held.waitFor({ timeout: 30_000 });
    // Approved, the turn is complete: found by its id from here on.
    const turn = desk.page.locator(`.chat .turn[data-message="${await held.getAttribute('data-message')}"]`);
    expect((await turn.locator('.answer').textContent())?.length).toBeGreaterThan(10);
    expect(await turn.locator('.source.cited').count()).toBeGreaterThan(0);
    await shot(desk.page, shots, '10-chat');
    await turn.locator('button.approve-answer').click();
    await expect.poll(() => turn.locator('.badge.resumed').textContent()).toMatch(/^approved by /);
    const href = (await turn.locator('.source.cited a').first().getAttribute('href')) ?? '';
    const block = decodeURIComponent(/block=([^&]+)/.exec(href)?.[1] ?? '');
    expect(block).toMatch(/^b\d+$/);
    await turn.locator('.source.cited a').first().click();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selected()).toBe(block);
  });

  it('shows the audit trail as a timeline per block', async () => {
    const edited = await blockAt(4);
    await desk.page.click('nav.tabs a[href$="/audit"]');
    await desk.page.waitForSelector('.audit[data-loaded=true]');
    const timeline = desk.page.locator(`.timeline[data-entity="${edited.block_id}"]`);
    expect(await timeline.locator('.event').count()).toBeGreaterThanOrEqual(2);
    expect(await timeline.textContent()).toContain('MINE');
    await shot(desk.page, shots, '11-audit');
  });

  it('asks for the key again when the server stops accepting it', async () => {
    // As after a restart with another key: the next API answer is a 401.
    await desk.page.route(
      `${desk.server.url}/jobs?*`,
      (route) =>
        route.fulfill({
          status: 401,
          json: { error: { code: 'UNAUTHORIZED', message: 'the X-API-Key header does not match' } },
        }),
      { times: 1 },
    );
    await desk.page.evaluate(() => (location.hash = '#/'));
    await desk.page.waitForSelector('.key-form');
    await desk.page.fill('input[name=api-key]', desk.server.key);
    await desk.page.click('.key-form button[type=submit]');
    await desk.page.waitForSelector(`tr[data-job="${jobId}"]`);
  });

  it('never asked anything of a host other than the local server', () => {
    const foreign = desk.requests.filter(
      (u) => !u.startsWith(`${desk.server.url}/`) && !u.startsWith('blob:') && !u.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(desk.logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, ingest, json, listAll, startServer, type TestServer } from '../helpers/app.js';
import { makeManyBlocksPdf, manyBlocksSentence } from '../helpers/make-pdf.js';
import { deskSession } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The review list's tools, as reviewers know them from other review tools, in Debian's chromium against the
// real server: a review progress bar with session stats, next pending / flagged jumps (round the end, and
// saying when there is none), search within the document, filters, notes shown in the rows, and split, merge
// and reading order by dragging, each undone, seen again after a reload and carried into the export.

const BLOCKS = 60;
const shots = screenshotDir('review-list-tools');
let server: TestServer;
let browser: Browser;
let page: Page;
let logs: string[];
let jobId = '';

type Block = {
  block_id: string;
  version: number;
  text: string;
  edited_text: string | null;
  status: string;
  reviewer_note: string | null;
  flagged?: boolean;
};
const block = async (id: string): Promise<Block> => json(await server.call('GET', `/jobs/${jobId}/blocks/${id}`));
const ids = async (job = jobId) => (await listAll(server, `/jobs/${job}/blocks`)).map((b) => b.block_id as string);
const effective = (b: Block) => b.edited_text ?? b.text;
const selected = () => page.locator('.vlist .block-row.selected').getAttribute('data-block');
const row = (id: string) => page.locator(`.vlist .block-row[data-block="${id}"]`);
const toasts = () => page.textContent('.toasts');
const progressText = () => page.textContent('.review-progress .progress-text');
const listRows = () =>
  page.locator('.vlist .block-row[data-block]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.block!));
const sentence = manyBlocksSentence;

async function openDesk(job = jobId): Promise<void> {
  await page.goto(`${server.url}/#/jobs/${job}/review`);
  await page.waitForSelector('.review[data-loaded=true]');
}

/** Selects paragraph n by finding its number, as a reviewer would, then gives the keys back to the list. */
async function selectBlock(n: number): Promise<void> {
  await page.fill('.doc-search', `Paragraph ${String(n).padStart(4, '0')} `);
  await page.press('.doc-search', 'Enter');
  await expect.poll(() => selected()).toBe(`b${n}`);
  await page.fill('.doc-search', '');
  await page.locator('.vlist').focus();
}

async function waitForToast(text: string | RegExp): Promise<void> {
  await expect.poll(() => toasts()).toMatch(text);
}

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer();
  jobId = (await ingest(server, 'many-blocks.pdf', await makeManyBlocksPdf(BLOCKS))).job_id;
  ({ browser, page, logs } = await deskSession(server));
  await openDesk();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('progress and jumps', () => {
  it("shows reviewed / total by status and this session's reviews, moving with every action and undo", async () => {
    await expect.poll(() => progressText()).toMatch(/^0 \/ 60 reviewed \(0%\).*this session: 0 reviewed/);
    await expect.poll(() => selected()).toBe('b1');
    await page.keyboard.press('a');
    await expect.poll(() => selected()).toBe('b2');
    await page.keyboard.press('a');
    await expect
      .poll(() => progressText())
      .toMatch(/^2 \/ 60 reviewed \(3%\) · 2 approved .*this session: 2 reviewed · \d+\.\d\/min/);
    expect(await page.getAttribute('.review-progress .seg.status-approved', 'data-count')).toBe('2');
    await page.keyboard.press('u');
    await expect.poll(() => progressText()).toMatch(/^1 \/ 60 reviewed.*this session: 1 reviewed/);
    await expect.poll(async () => (await block('b2')).status).toBe('pending');
    await shot(page, shots, '1-progress');
  });

  it('jumps to the next and previous pending block, round the end, and says when there is none', async () => {
    await page.locator('.vlist').focus();
    await selectBlock(1);
    await page.keyboard.press('p');
    await expect.poll(() => selected()).toBe('b2');
    await page.keyboard.press('Shift+P');
    // b1 is approved: the previous pending block is the last one, round the start.
    await expect.poll(() => selected()).toBe(`b${BLOCKS}`);
    await waitForToast('Went round to the last pending block');
    await page.click('.list-tools button.jump-pending');
    await expect.poll(() => selected()).toBe('b2');
    // Nothing is flagged in a PDF with a text layer: said, and the selection stays.
    await page.keyboard.press('f');
    await waitForToast('No other flagged block still pending');
    expect(await selected()).toBe('b2');
    // Under a filter that keeps only approved blocks there is no pending one to go to.
    await page.selectOption('.list-filters .filter-status', 'approved');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`1 of ${BLOCKS} shown`);
    await expect.poll(() => selected()).toBe('b1');
    await page.locator('.vlist').focus();
    await page.keyboard.press('p');
    await waitForToast('No other pending block in the filtered list');
    await page.click('.list-filters .filter-clear');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe('');
    await shot(page, shots, '2-jumps');
  });
});

describe('search and filters', () => {
  it('finds text in the document, highlights it in the list, and steps through the matches', async () => {
    await page.locator('.vlist').focus();
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('doc-search');
    await page.keyboard.type('Paragraph 0042');
    await page.keyboard.press('Enter');
    await expect.poll(() => selected()).toBe('b42');
    await expect.poll(() => row('b42').locator('mark').textContent()).toBe('Paragraph 0042');
    expect(await page.textContent('.search-count')).toBe('1 of 1 match');
    // A word every block has: Enter goes on, Shift+Enter back, g from the list goes on.
    await page.fill('.doc-search', 'RIVER');
    await page.press('.doc-search', 'Enter');
    await expect.poll(() => selected()).toBe('b43');
    await page.press('.doc-search', 'Shift+Enter');
    await expect.poll(() => selected()).toBe('b42');
    expect(await page.textContent('.search-count')).toBe(`42 of ${BLOCKS} matches`);
    await page.press('.doc-search', 'Escape');
    await page.keyboard.press('g');
    await expect.poll(() => selected()).toBe('b43');
    expect(await row('b43').locator('mark').first().textContent()).toBe('river');
    await shot(page, shots, '3-search');
    await page.fill('.doc-search', 'no such words anywhere');
    await page.press('.doc-search', 'Enter');
    await expect.poll(() => page.textContent('.search-count')).toBe('no match');
    await page.fill('.doc-search', '');
  });

  it('filters by text, status and type together; the list and j/k follow the filter', async () => {
    // "harbour" is the noun of paragraphs 10 to 19.
    await page.fill('.list-filters .filter-text', 'harbour');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await expect
      .poll(async () => (await listRows()).every((id) => sentence(Number(id.slice(1))).includes('harbour')))
      .toBe(true);
    expect((await listRows()).length).toBeLessThanOrEqual(10);
    await page.locator('.vlist').focus();
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    const first = await selected();
    await page.keyboard.press('j');
    await expect.poll(() => selected()).toBe(`b${Number(first!.slice(1)) + 1}`);
    await page.selectOption('.list-filters .filter-type', 'paragraph');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await page.selectOption('.list-filters .filter-status', 'approved');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`0 of ${BLOCKS} shown`);
    await shot(page, shots, '4-filters-empty');
    await page.selectOption('.list-filters .filter-status', 'pending');
    await page.selectOption('.list-filters .filter-confidence', 'flagged');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`0 of ${BLOCKS} shown`);
    await page.selectOption('.list-filters .filter-confidence', 'text');
    await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await shot(page, shots, '4-filters');
    await page.click('.list-filters .filter-clear');
    await expect
      .poll(async () => (await listRows()).some((id) => !sentence(Number(id.slice(1))).includes('harbour')))
      .toBe(true);
  });
});

describe('notes in the list', () => {
  it("shows a block's note in its row, not only on hover; undo takes it away; a reload shows it again", async () => {
    await page.locator('.vlist').focus();
    await selectBlock(5);
    await page.keyboard.press('n');
    await page.waitForSelector('.block-row.editing .edit-note:focus');
    await page.keyboard.type('Check the figure caption on the original page');
    await page.keyboard.press('Control+Enter');
    await expect
      .poll(async () => (await block('b5')).reviewer_note)
      .toBe('Check the figure caption on the original page');
    await expect
      .poll(() => row('b5').locator('.row-note').textContent())
      .toBe('✉ Check the figure caption on the original page');
    expect(await row('b5').locator('.row-note').isVisible()).toBe(true);
    await shot(page, shots, '5-note');
    await page.keyboard.press('u');
    await expect.poll(async () => (await block('b5')).reviewer_note).toBeNull();
    await expect.poll(() => row('b5').locator('.row-note').count()).toBe(0);
    await page.keyboard.press('n');
    await page.waitForSelector('.block-row.editing .edit-note:focus');
    await page.keyboard.type('Kept note');
    await page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await block('b5')).reviewer_note).toBe('Kept note');
    await page.reload();
    await page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => row('b5').locator('.row-note').textContent()).toBe('✉ Kept note');
  });
});

describe('split, merge and reading order', () => {
  it('splits a block where the cursor is; undo makes it whole; done again, a reload shows both parts', async () => {
    await page.locator('.vlist').focus();
    await selectBlock(3);
    const before = await ids();
    const whole = sentence(3);
    const at = whole.indexOf('every');
    await page.keyboard.press('s');
    await page.waitForSelector('dialog[open] .split-text');
    await page.locator('dialog[open] .split-text').evaluate((el, at) => {
      const t = el as HTMLTextAreaElement;
      t.focus();
      t.setSelectionRange(at, at);
      t.dispatchEvent(new Event('select'));
    }, at);
    await expect.poll(() => page.textContent('dialog[open] .split-hint')).toContain(`Cut at character ${at}`);
    await shot(page, shots, '6-split-dialog');
    await page.click('dialog[open] button:has-text("Split here")');
    await expect.poll(async () => (await ids()).length).toBe(before.length + 1);
    const after = await ids();
    const newId = after[after.indexOf('b3') + 1]!;
    expect(newId).not.toBe('b4');
    expect(effective(await block('b3'))).toBe(whole.slice(0, at).trimEnd());
    expect(effective(await block(newId))).toBe(whole.slice(at));
    await expect.poll(() => selected()).toBe(newId);
    await expect.poll(() => row(newId).locator('.row-text').textContent()).toBe(whole.slice(at));
    await expect.poll(() => page.textContent('.review-toolbar .loading-note')).toBe(`${before.length + 1} blocks`);
    await shot(page, shots, '6-split');
    await page.keyboard.press('u');
    await waitForToast('Undid split block');
    await expect.poll(() => ids()).toEqual(before);
    await expect.poll(() => row('b3').locator('.row-text').textContent()).toBe(whole);
    await expect.poll(() => row(newId).count()).toBe(0);
    // Again, and kept: a reload reads it from the server.
    await selectBlock(3);
    await page.keyboard.press('s');
    await page.waitForSelector('dialog[open] .split-text');
    await page
      .locator('dialog[open] .split-text')
      .evaluate((el, at) => (el as HTMLTextAreaElement).setSelectionRange(at, at), at);
    await page.click('dialog[open] button:has-text("Split here")');
    await expect.poll(async () => (await ids()).length).toBe(before.length + 1);
    await page.reload();
    await page.waitForSelector('.review[data-loaded=true]');
    const kept = await ids();
    await expect
      .poll(() =>
        row(kept[kept.indexOf('b3') + 1]!)
          .locator('.row-text')
          .textContent(),
      )
      .toBe(whole.slice(at));
  });

  it('merges a block with the next one; undo brings the second back; merged again for the export', async () => {
    await page.locator('.vlist').focus();
    await selectBlock(7);
    const before = await ids();
    await page.click('.structure-tools button.merge-next');
    await expect.poll(async () => (await ids()).length).toBe(before.length - 1);
    expect(effective(await block('b7'))).toBe(`${sentence(7)} ${sentence(8)}`);
    await expect.poll(() => row('b7').locator('.row-text').textContent()).toBe(`${sentence(7)} ${sentence(8)}`);
    await expect.poll(() => row('b8').count()).toBe(0);
    await shot(page, shots, '7-merge');
    await page.keyboard.press('u');
    await expect.poll(() => ids()).toEqual(before);
    await expect.poll(() => row('b8').locator('.row-text').textContent()).toBe(sentence(8));
    expect(effective(await block('b7'))).toBe(sentence(7));
    await selectBlock(7);
    await page.keyboard.press('m');
    await expect.poll(async () => (await ids()).length).toBe(before.length - 1);
  });

  it('fixes the reading order by dragging a row and with Shift+J; each undone; a reload shows the order', async () => {
    await page.locator('.vlist').focus();
    await selectBlock(11);
    const before = await ids();
    // b13 dropped on the top half of b11's row: it goes before b11.
    await row('b13').dragTo(row('b11'), { targetPosition: { x: 40, y: 6 } });
    await expect.poll(async () => (await ids()).join(' ')).toContain('b10 b13 b11 b12 b14');
    await expect.poll(() => listRows().then((r) => r.join(' '))).toContain('b10 b13 b11 b12 b14');
    await shot(page, shots, '8-dragged');
    await page.keyboard.press('u');
    await expect.poll(() => ids()).toEqual(before);
    await row('b13').dragTo(row('b11'), { targetPosition: { x: 40, y: 6 } });
    await expect.poll(async () => (await ids()).join(' ')).toContain('b10 b13 b11 b12 b14');
    // The keyboard does the same: Shift+J moves the selected block one place down.
    await selectBlock(20);
    await page.keyboard.press('Shift+J');
    await expect.poll(async () => (await ids()).join(' ')).toContain('b19 b21 b20 b22');
    await expect.poll(() => selected()).toBe('b20');
    await page.keyboard.press('u');
    await expect.poll(async () => (await ids()).join(' ')).toContain('b19 b20 b21 b22');
    await page.reload();
    await page.waitForSelector('.review[data-loaded=true]');
    await selectBlock(11);
    await expect.poll(() => listRows().then((r) => r.join(' '))).toContain('b10 b13 b11 b12 b14');
  });

  it('the export carries the split, the merge and the new order; a finalized job refuses them', async () => {
    const order = await listAll(server, `/jobs/${jobId}/blocks`);
    const fin = await server.call('POST', `/jobs/${jobId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(fin.status).toBe(200);
    const res = await server.call('GET', `/jobs/${jobId}/export`);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const md = strFromU8(Object.entries(files).find(([name]) => name.endsWith('document.md'))![1]);
    // Every block, each found after the one before it (the split's second half repeats words of others).
    let from = 0;
    for (const b of order) {
      const p = md.indexOf(effective(b as Block), from);
      expect(p, `${b.block_id} after position ${from}`).toBeGreaterThanOrEqual(0);
      from = p + 1;
    }
    expect(md).toContain(`${sentence(7)} ${sentence(8)}`);
    expect(md.indexOf(sentence(13))).toBeLessThan(md.indexOf(sentence(11)));
    expect(md.indexOf(sentence(3).slice(0, sentence(3).indexOf('every')).trimEnd())).toBeLessThan(
      md.indexOf(sentence(4)),
    );
    await openDesk();
    await page.keyboard.press('m');
    await waitForToast('read-only');
    expect((await ids()).length).toBe(order.length);
    expect(logs.filter((l) => !/Failed to load resource/.test(l))).toEqual([]);
  });
});

describe('next flagged on a scanned document', () => {
  it('visits every flagged pending block, round the end, and the confidence filter shows just them', async () => {
    const scanned = await ingest(
      server,
      'booktabs-scan.pdf',
      new Uint8Array(readFileSync(join(fixturesDir, 'scanned/scan02-booktabs-p2.pdf'))),
    );
    const all = (await listAll(server, `/jobs/${scanned.job_id}/blocks`)) as Block[];
    const flagged = all.filter((b) => b.flagged).map((b) => b.block_id);
    expect(flagged.length).toBeGreaterThan(0);
    await openDesk(scanned.job_id);
    await page.locator('.vlist').focus();
    if (flagged.length === 1) {
      // One flagged block: F goes to it, and again says there is no other.
      await page.keyboard.press('f');
      await expect.poll(() => selected()).toBe(flagged[0]);
      await page.keyboard.press('f');
      await waitForToast('No other flagged block still pending');
      expect(await selected()).toBe(flagged[0]);
      await page.selectOption('.list-filters .filter-confidence', 'flagged');
      await expect.poll(() => page.textContent('.list-filters .filter-count')).toBe(`1 of ${all.length} shown`);
      return void (await shot(page, shots, '9-flagged'));
    }
    const seen: string[] = [];
    const said: string[] = [];
    for (let k = 0; k <= flagged.length; k++) {
      const was = await selected();
      await page.keyboard.press('f');
      await expect.poll(() => selected()).not.toBe(was);
      seen.push((await selected())!);
      said.push((await toasts()) ?? '');
    }
    // One more press than there are flagged blocks: every one visited, then round to the first again.
    expect(new Set(seen)).toEqual(new Set(flagged));
    expect(seen[seen.length - 1]).toBe(seen[0]);
    expect(said.join('\n')).toContain('Went round to the first flagged block still pending');
    await page.selectOption('.list-filters .filter-confidence', 'flagged');
    await expect
      .poll(() => page.textContent('.list-filters .filter-count'))
      .toBe(`${flagged.length} of ${all.length} shown`);
    await shot(page, shots, '9-flagged');
  });
});

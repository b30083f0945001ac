import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fixturesDir, ingest, listAll } from '../helpers/app.js';
import { useDesk } from './helpers/desk.js';
import { openReview, type ReviewBlock, readBlock, selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Tables in the desk: a table block reads as a table in the list (never as "| | |"
// Markdown), and is edited as a grid whose save writes the Markdown table the server's extractors and the
// export write; undo, a reload and the export agree. On booktabs-manual's page 2 tables: one without a
// head row (the extractor writes an empty placeholder head) and one with a two-row head.

const shots = screenshotDir('review-table-grid');
let jobId = '';
let headless: Block;
let headed: Block;
const desk = useDesk({
  seed: async (server) => {
    const job = await ingest(
      server,
      'booktabs-manual.pdf',
      readFileSync(join(fixturesDir, 'pdfs', 'booktabs-manual.pdf')),
    );
    jobId = job.job_id;
    const tables = (await listAll(server, `/jobs/${jobId}/blocks?type=table&page=2`)) as Block[];
    headless = tables.find((b) => b.table?.header_rows === 0)!;
    headed = tables.find((b) => (b.table?.header_rows ?? 0) > 0)!;
    expect(headless.text.split('\n')[0]).toMatch(/^\|( \|)+$/);
  },
  timeout: 300_000,
});

type Block = ReviewBlock & { table: { rows: string[][]; header_rows: number } | null };
const block = (id: string) => readBlock<Block>(desk.server, jobId, id);
const row = (id: string) => desk.page.locator(`.vlist .block-row[data-block="${id}"]`);
const cell = (r: number, c: number) =>
  desk.page.locator(`.block-row.editing input.grid-cell[data-r="${r}"][data-c="${c}"]`);
const focusedCell = () => desk.page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
const gridValues = () =>
  desk.page.$$eval('.block-row.editing .grid-cells tr', (trs) =>
    trs.map((tr) => Array.from(tr.querySelectorAll('input'), (i) => i.value)),
  );

async function openAt(id: string): Promise<void> {
  // A full load each time: a hash change alone would leave the old desk's element to be waited on.
  await desk.page.goto('about:blank');
  await openReview(desk.page, desk.server, jobId, `?block=${id}`);
  await expect.poll(() => selectedBlock(desk.page)).toBe(id);
}

async function typeInto(r: number, c: number, text: string): Promise<void> {
  await cell(r, c).click();
  await desk.page.keyboard.press('Control+a');
  await desk.page.keyboard.type(text);
}

describe('tables in the review desk', () => {
  it('shows a table block as a table in the list, without the empty placeholder head', async () => {
    await openAt(headless.block_id);
    const preview = row(headless.block_id).locator('table.table-preview');
    await expect.poll(() => preview.count()).toBe(1);
    expect(await preview.locator('thead').count()).toBe(0);
    expect(await preview.locator('tbody tr').first().locator('td').allTextContents()).toEqual(headless.table!.rows[0]);
    expect(await row(headless.block_id).locator('.row-text').textContent()).not.toContain('|');
    const withHead = row(headed.block_id).locator('table.table-preview thead th');
    await expect.poll(() => withHead.count()).toBe(3);
    expect(await withHead.first().textContent()).toBe('Animal');
    await shot(desk.page, shots, '1-list');
  });

  it('opens a grid editor; saving it unchanged writes nothing (the same Markdown as the extractor)', async () => {
    await desk.page.locator('.vlist').focus();
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    const rows = headless.table!.rows;
    expect(await gridValues()).toEqual([rows[0]!.map(() => ''), ...rows]);
    expect(await focusedCell()).toBe('Row 1, column 1');
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    expect(await block(headless.block_id)).toMatchObject({ version: headless.version, edited_text: null });
    // A two-row head merges into one head row: reading it back and writing it again gives the same text.
    await openAt(headed.block_id);
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    expect((await gridValues())[0]).toEqual(['Animal', 'Item Description', 'Price ($)']);
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    expect(await block(headed.block_id)).toMatchObject({ version: headed.version, edited_text: null });
  });

  it('edits cells, moves with Tab, adds and removes rows and columns, and saves a Markdown table', async () => {
    await openAt(headless.block_id);
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    // The head row is kept: filling it gives the table a head.
    await typeInto(0, 0, 'Item');
    await desk.page.keyboard.press('Tab');
    expect(await focusedCell()).toBe('Head, column 2');
    await desk.page.keyboard.type('Unit');
    await desk.page.keyboard.press('Tab');
    await desk.page.keyboard.type('Price');
    await desk.page.keyboard.press('Tab');
    expect(await focusedCell()).toBe('Row 1, column 1');
    await desk.page.keyboard.press('Control+a');
    await desk.page.keyboard.type('gnat | small');
    await desk.page.keyboard.press('Shift+Tab');
    expect(await focusedCell()).toBe('Head, column 3');
    // Remove row 2 ("", "each", ".01"); the head row cannot be removed.
    await cell(2, 1).click();
    await desk.page.click('.block-row.editing .grid-remove-row');
    expect((await gridValues()).length).toBe(5);
    await cell(0, 1).click();
    await desk.page.click('.block-row.editing .grid-remove-row');
    expect((await gridValues()).length).toBe(5);
    // A row after the last, filled with Tab.
    await cell(4, 0).click();
    await desk.page.click('.block-row.editing .grid-add-row');
    expect(await focusedCell()).toBe('Row 5, column 1');
    await desk.page.keyboard.type('yak');
    await desk.page.keyboard.press('Tab');
    await desk.page.keyboard.type('each');
    await desk.page.keyboard.press('Tab');
    await desk.page.keyboard.type('1.00');
    // A column added right of the first, then removed again, leaves the cells as they were.
    await cell(1, 0).click();
    await desk.page.click('.block-row.editing .grid-add-col');
    expect(await focusedCell()).toBe('Row 1, column 2');
    expect((await gridValues())[0]).toEqual(['Item', '', 'Unit', 'Price']);
    await desk.page.click('.block-row.editing .grid-remove-col');
    expect((await gridValues())[0]).toEqual(['Item', 'Unit', 'Price']);
    await shot(desk.page, shots, '2-grid-editing');
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    const expected = [
      '| Item | Unit | Price |',
      '| --- | --- | --- |',
      '| gnat \\| small | gram | $13.65 |',
      '| gnu | stuffed | 92.50 |',
      '| emu | | 33.33 |',
      '| armadillo | frozen | 8.99 |',
      '| yak | each | 1.00 |',
    ].join('\n');
    await expect.poll(async () => (await block(headless.block_id)).edited_text).toBe(expected);
    expect((await block(headless.block_id)).status).toBe('edited');
    const preview = row(headless.block_id).locator('table.table-preview');
    await expect.poll(() => preview.locator('thead th').allTextContents()).toEqual(['Item', 'Unit', 'Price']);
    expect(await preview.locator('tbody tr').first().locator('td').first().textContent()).toBe('gnat | small');
    await shot(desk.page, shots, '3-saved');
  });

  it('keeps the edit over a reload, undoes it to the extracted table, and exports the edited table', async () => {
    await desk.page.reload();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await expect
      .poll(() => row(headless.block_id).locator('table.table-preview thead th').allTextContents())
      .toEqual(['Item', 'Unit', 'Price']);
    await desk.page.locator('.vlist').focus();
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    expect((await gridValues()).at(-1)).toEqual(['yak', 'each', '1.00']);
    await desk.page.keyboard.press('Escape');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    // Undo lives in the tab that made the change, and survives the reload only on the server: make a
    // second change here, then undo it back to the first.
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    await typeInto(5, 0, 'bison');
    await desk.page.keyboard.press('Control+Enter');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    await expect
      .poll(async () => (await block(headless.block_id)).edited_text)
      .toMatch(/\| bison \| each \| 1\.00 \|$/);
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await block(headless.block_id)).edited_text).toMatch(/\| yak \| each \| 1\.00 \|$/);
    await expect
      .poll(() => row(headless.block_id).locator('tbody tr').last().locator('td').first().textContent())
      .toBe('yak');
    // The Markdown stays one click away, and reads back as a grid.
    await desk.page.keyboard.press('e');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    await desk.page.click('.block-row.editing .grid-toggle');
    const md = await desk.page.inputValue('.block-row.editing textarea.edit-text');
    expect(md).toBe((await block(headless.block_id)).edited_text);
    await desk.page.click('.block-row.editing .grid-toggle');
    await desk.page.waitForSelector('.block-row.editing .table-grid');
    await desk.page.keyboard.press('Escape');
    await desk.page.waitForSelector('.block-row.editing', { state: 'detached' });
    await shot(desk.page, shots, '4-after-undo');

    const edited = (await block(headless.block_id)).edited_text!;
    const fin = await desk.server.call('POST', `/jobs/${jobId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(fin.status).toBe(200);
    const zip = unzipSync(new Uint8Array(await (await desk.server.call('GET', `/jobs/${jobId}/export`)).arrayBuffer()));
    const doc = strFromU8(zip[Object.keys(zip).find((n) => n.endsWith('document.md'))!]!);
    expect(doc).toContain(edited);
    expect(doc).not.toContain(headless.text);
    expect(doc).toContain(headed.text);
    expect(desk.logs.filter((l) => /pageerror/.test(l))).toEqual([]);
  });
});

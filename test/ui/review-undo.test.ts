import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, json, listAll, listPage, startServer, type TestServer } from '../helpers/app.js';
import { makeManyBlocksPdf, MANY_BLOCKS_PER_PAGE } from '../helpers/make-pdf.js';
import { deskSession } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The desk must never lose a reviewer's work: undo gives back exactly what was there (never a blank
// block), editing back to the machine's text is no edit, bulk approval is a few requests with progress,
// and what the desk shows, what the server keeps and what the export carries agree after a reload.

const BLOCKS = 1500;
const shots = screenshotDir('review-undo');
let server: TestServer;
let browser: Browser;
let page: Page;
let requests: string[];
let logs: string[];
let jobId = '';

type Block = { block_id: string; version: number; text: string; edited_text: string | null; status: string; page: number };
const block = async (id: string): Promise<Block> => json(await server.call('GET', `/jobs/${jobId}/blocks/${id}`));
const selected = () => page.locator('.vlist .block-row.selected').getAttribute('data-block');
const rowText = (id: string) => page.locator(`.vlist .block-row[data-block="${id}"] .row-text`).textContent();
const counts = () => page.textContent('.review-toolbar .counts');

async function openDesk(): Promise<void> {
  await page.goto(`${server.url}/#/jobs/${jobId}/review`);
  await page.waitForSelector('.review[data-loaded=true]');
}

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer();
  const job = await ingest(server, 'many-blocks.pdf', await makeManyBlocksPdf(BLOCKS));
  jobId = job.job_id;
  ({ browser, page, logs, requests } = await deskSession(server, { acceptDownloads: true }));
  await openDesk();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the desk keeps the reviewer\'s work', () => {
  it('rejects a block and undoes it: the row and the server hold the extracted text again', async () => {
    const first = await block('b1');
    await expect.poll(() => selected()).toBe('b1');
    await page.keyboard.press('r');
    await expect.poll(async () => (await block('b1')).status).toBe('rejected');
    await page.keyboard.press('u');
    await expect.poll(async () => (await block('b1')).version).toBe(first.version + 2);
    expect(await block('b1')).toMatchObject({ status: 'pending', edited_text: null, text: first.text });
    await expect.poll(() => rowText('b1')).toBe(first.text);
    const audit = await listPage(server, `/jobs/${jobId}/audit?entity_id=b1&limit=1`);
    expect(audit.items[0]).toMatchObject({ action: 'undo', after: { status: 'pending', edited_text: null } });
    await shot(page, shots, '1-reject-undo');
  });

  it('approves a page with Shift+A in one request and undoes it: every block keeps its text', async () => {
    await page.keyboard.press('k');
    await expect.poll(() => selected()).toBe('b1');
    const before = (await listAll(server, `/jobs/${jobId}/blocks?page=1`)) as Block[];
    const sent = requests.length;
    await page.keyboard.press('Shift+A');
    await expect.poll(async () => (await listPage(server, `/jobs/${jobId}/blocks?page=1&status=pending`)).total).toBe(0);
    await expect.poll(() => counts()).toMatch(new RegExp(`^${BLOCKS - MANY_BLOCKS_PER_PAGE} pending · ${MANY_BLOCKS_PER_PAGE} approved`));
    const calls = requests.slice(sent).filter((u) => u.includes(`/jobs/${jobId}/blocks`));
    expect(calls.filter((u) => u.endsWith('/blocks/review'))).toHaveLength(1);
    expect(calls.filter((u) => /\/blocks\/b\d+$/.test(u))).toEqual([]);
    await page.keyboard.press('u');
    await expect.poll(() => counts()).toMatch(new RegExp(`^${BLOCKS} pending`));
    const after = (await listAll(server, `/jobs/${jobId}/blocks?page=1`)) as Block[];
    expect(after.map((b) => [b.block_id, b.status, b.edited_text, b.text])).toEqual(before.map((b) => [b.block_id, 'pending', null, b.text]));
    for (const b of before.slice(0, 8)) await expect.poll(() => rowText(b.block_id)).toBe(b.text);
    await shot(page, shots, '2-page-undo');
  });

  it('edits a block back to its original text: no edit remains, and nothing goes blank', async () => {
    await page.keyboard.press('j');
    await expect.poll(() => selected()).toBe('b2');
    const original = (await block('b2')).text;
    const edit = async (text: string) => {
      await page.keyboard.press('e');
      await page.waitForSelector('.block-row.editing textarea:focus');
      await page.keyboard.press('Control+a');
      await page.keyboard.type(text);
      await page.keyboard.press('Control+Enter');
      await page.waitForSelector('.block-row.editing', { state: 'detached' });
    };
    await edit('A reading the reviewer corrected.');
    await expect.poll(async () => (await block('b2')).edited_text).toBe('A reading the reviewer corrected.');
    await edit(original);
    await expect.poll(async () => (await block('b2')).edited_text).toBeNull();
    expect(await block('b2')).toMatchObject({ status: 'pending', text: original });
    await expect.poll(() => rowText('b2')).toBe(original);
    // Undo twice: back through the correction to the extracted block.
    await page.keyboard.press('u');
    await expect.poll(async () => (await block('b2')).edited_text).toBe('A reading the reviewer corrected.');
    await expect.poll(() => rowText('b2')).toBe('A reading the reviewer corrected.');
    await page.keyboard.press('u');
    await expect.poll(async () => (await block('b2')).edited_text).toBeNull();
    await expect.poll(() => rowText('b2')).toBe(original);
  });

  it('asks before saving an empty block, and saves nothing when the reviewer declines', async () => {
    const b = await block('b2');
    await page.keyboard.press('e');
    await page.waitForSelector('.block-row.editing textarea:focus');
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('dialog[open]');
    expect(await page.textContent('dialog[open]')).toContain('empty');
    await shot(page, shots, '3-empty-confirm');
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog[open]', { state: 'detached' });
    expect(await block('b2')).toEqual(b);
    await page.keyboard.press('Escape');
  });

  it('approves all pending in a few bulk requests with progress, and undoes them in one action', async () => {
    const sent = requests.length;
    await page.click('.review-toolbar .approve-all');
    await page.click('dialog button[data-value=true]');
    await expect.poll(() => counts(), { timeout: 30_000 }).toMatch(/^0 pending/);
    expect((await json(await server.call('GET', `/jobs/${jobId}`))).review.blocks.pending).toBe(0);
    const calls = requests.slice(sent).filter((u) => u.includes(`/jobs/${jobId}/blocks`));
    expect(calls.filter((u) => u.endsWith('/blocks/review')).length).toBe(Math.ceil(BLOCKS / 1000));
    expect(calls.filter((u) => /\/blocks\/b\d+$/.test(u))).toEqual([]);
    await shot(page, shots, '4-approved-all');
    // A key pressed right after moves at once: nothing is queued behind thousands of requests.
    await page.keyboard.press('u');
    await expect.poll(() => counts(), { timeout: 30_000 }).toMatch(new RegExp(`^${BLOCKS} pending`));
    expect((await listPage(server, `/jobs/${jobId}/audit?action=undo`)).total).toBeGreaterThanOrEqual(BLOCKS);
  });

  it('shows after a reload what the server keeps, and exports every approved block\'s words', async () => {
    // Approve page 2, reject b31 (page 2's first), undo the rejection, then reload.
    await page.fill('.review-toolbar .page-input', '2');
    await page.press('.review-toolbar .page-input', 'Enter');
    await expect.poll(() => selected()).toBe(`b${MANY_BLOCKS_PER_PAGE + 1}`);
    await page.locator('.vlist').focus();
    await page.keyboard.press('r');
    await expect.poll(async () => (await block(`b${MANY_BLOCKS_PER_PAGE + 1}`)).status).toBe('rejected');
    await page.keyboard.press('u');
    await expect.poll(async () => (await block(`b${MANY_BLOCKS_PER_PAGE + 1}`)).status).toBe('pending');
    await page.keyboard.press('Shift+A');
    await expect.poll(async () => (await listPage(server, `/jobs/${jobId}/blocks?page=2&status=approved`)).total).toBe(MANY_BLOCKS_PER_PAGE);
    // The reload comes at once after the last answer, and still opens the block that was selected.
    const before = await selected();
    expect(before).toBe(`b${MANY_BLOCKS_PER_PAGE + 2}`);
    await page.reload();
    await page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selected()).toBe(before);
    await page.fill('.review-toolbar .page-input', '2');
    await page.press('.review-toolbar .page-input', 'Enter');
    await expect.poll(() => selected()).toBe(`b${MANY_BLOCKS_PER_PAGE + 1}`);
    const kept = (await listAll(server, `/jobs/${jobId}/blocks?page=2`)) as Block[];
    for (const b of kept.slice(0, 8)) {
      await expect.poll(() => rowText(b.block_id)).toBe(b.edited_text ?? b.text);
      expect(await page.getAttribute(`.vlist .block-row[data-block="${b.block_id}"]`, 'class')).toContain('approved');
    }
    await shot(page, shots, '5-reloaded');
    const fin = await server.call('POST', `/jobs/${jobId}/finalize`, { json: { finalize_policy: 'auto_reject_pending' } });
    expect(fin.status).toBe(200);
    const zip = unzipSync(new Uint8Array(await (await server.call('GET', `/jobs/${jobId}/export`)).arrayBuffer()));
    const md = strFromU8(zip[Object.keys(zip).find((n) => n.endsWith('document.md'))!]!);
    for (const b of kept) expect(md).toContain(b.text);
    expect(md).not.toContain((await block('b1')).text);
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { ingest, listPage } from '../helpers/app.js';
import { makeManyBlocksPdf, MANY_BLOCKS_PER_PAGE } from '../helpers/make-pdf.js';
import { useDesk } from './helpers/desk.js';
import { readBlock, selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Finding one's place again in the review desk, in Debian's chromium against the real
// server on a generated PDF (4 pages of 30 one-line paragraphs): the place in the list and the undo
// history survive a trip to another screen of the job; after typing a page number the list has the keys
// again; the list is reached with Tab and shows it has focus; and a reload opens the block that was
// selected, however quickly it follows the last key.

const BLOCKS = 4 * MANY_BLOCKS_PER_PAGE;
const shots = screenshotDir('review-navigation');
let jobId = '';
const desk = useDesk({
  seed: async (server) => {
    jobId = (await ingest(server, 'many-blocks.pdf', await makeManyBlocksPdf(BLOCKS))).job_id;
  },
});

const block = (id: string) => readBlock(desk.server, jobId, id);
const selected = () => selectedBlock(desk.page);
const focused = () => desk.page.evaluate(() => document.activeElement?.className ?? '');
const b = (n: number) => `b${n}`;

async function deskLoaded(): Promise<void> {
  await desk.page.waitForSelector('.review[data-loaded=true]');
}

async function typePage(n: number): Promise<void> {
  await desk.page.fill('.review-toolbar .page-input', String(n));
  await desk.page.press('.review-toolbar .page-input', 'Enter');
  await expect.poll(() => selected()).toBe(b((n - 1) * MANY_BLOCKS_PER_PAGE + 1));
}

beforeAll(async () => {
  await desk.page.goto(`${desk.server.url}/#/jobs/${jobId}/review`);
  await deskLoaded();
});

describe('the desk keeps its place', () => {
  it('gives j and k back to the list after a page number is typed and Enter pressed', async () => {
    await typePage(2);
    await expect.poll(() => focused()).toContain('vlist');
    await desk.page.keyboard.press('j');
    await expect.poll(() => selected()).toBe(b(MANY_BLOCKS_PER_PAGE + 2));
    // Each key is seen to move: a wait on the block selected already would pass if k did nothing.
    await desk.page.keyboard.press('j');
    await expect.poll(() => selected()).toBe(b(MANY_BLOCKS_PER_PAGE + 3));
    await desk.page.keyboard.press('k');
    await expect.poll(() => selected()).toBe(b(MANY_BLOCKS_PER_PAGE + 2));
    // The box shows the page of the block now selected, not the number typed.
    expect(await desk.page.inputValue('.review-toolbar .page-input')).toBe('2');
    await shot(desk.page, shots, '1-after-page-number');
  });

  it('puts the block list in the Tab order and shows it has focus', async () => {
    await desk.page.focus('.review-toolbar .page-input');
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await desk.page.keyboard.press('Tab');
      reached = (await focused()).includes('vlist');
    }
    expect(reached).toBe(true);
    const ring = await desk.page.evaluate(() => {
      const s = getComputedStyle(document.querySelector('.review .vlist')!);
      return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
    });
    expect(ring.style).not.toBe('none');
    expect(ring.width).toBeGreaterThan(0);
    // The listbox names its selected row for assistive technology.
    const active = await desk.page.getAttribute('.review .vlist', 'aria-activedescendant');
    expect(active).toBe(`block-${await selected()}`);
    const before = await selected();
    await desk.page.keyboard.press('j');
    await expect.poll(() => selected()).not.toBe(before);
    await shot(desk.page, shots, '2-list-focused-by-tab');
  });

  it('comes back from the Audit screen at the same block, with undo still there', async () => {
    await typePage(3);
    await desk.page.focus('.review .vlist');
    const approvedId = b(2 * MANY_BLOCKS_PER_PAGE + 1);
    await desk.page.keyboard.press('a');
    await expect.poll(async () => (await block(approvedId)).status).toBe('approved');
    await desk.page.keyboard.press('j');
    await desk.page.keyboard.press('j');
    const place = b(2 * MANY_BLOCKS_PER_PAGE + 4);
    await expect.poll(() => selected()).toBe(place);
    await desk.page.click('nav.tabs a[href$="/audit"]');
    await desk.page.waitForSelector('.audit[data-loaded=true]');
    await desk.page.click('nav.tabs a[href$="/review"]');
    await deskLoaded();
    await expect.poll(() => selected()).toBe(place);
    expect(await desk.page.inputValue('.review-toolbar .page-input')).toBe('3');
    expect(await desk.page.getAttribute('.review-toolbar button[title^="Undo"]', 'disabled')).toBeNull();
    await shot(desk.page, shots, '3-back-from-audit');
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await block(approvedId)).status).toBe('pending');
  });

  it('reaches the Audit screen when its tab is clicked while the desk is still writing its address', async () => {
    // The CI race: j moves faster than the desk writes its address (past its burst of 50 writes), so the last
    // write waits on a timer; the tab is clicked and the page is busy until that timer is due. The write must
    // not put the desk's address back over the Audit screen's before the hashchange is handled.
    await desk.page.focus('.review .vlist');
    await desk.page.evaluate(() => {
      const key = () =>
        document.activeElement!.dispatchEvent(new KeyboardEvent('keydown', { key: 'j', bubbles: true }));
      for (let i = 0; i < 60; i++) key();
      (document.querySelector('nav.tabs a[href$="/audit"]') as HTMLAnchorElement).click();
      const until = performance.now() + 150;
      while (performance.now() < until);
    });
    await desk.page.waitForSelector('.audit[data-loaded=true]');
    expect(desk.page.url()).toMatch(/\/audit$/);
    await desk.page.click('nav.tabs a[href$="/review"]');
    await deskLoaded();
  });

  it('opens the selected block after a reload that follows the last key at once', async () => {
    // As the undo test did: move with the page box, reject, undo, approve the page, reload.
    await typePage(4);
    await desk.page.focus('.review .vlist');
    await desk.page.keyboard.press('j');
    const rejected = b(3 * MANY_BLOCKS_PER_PAGE + 2);
    await expect.poll(() => selected()).toBe(rejected);
    await desk.page.keyboard.press('r');
    await expect.poll(async () => (await block(rejected)).status).toBe('rejected');
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await block(rejected)).status).toBe('pending');
    await desk.page.keyboard.press('Shift+A');
    await expect
      .poll(async () => (await listPage(desk.server, `/jobs/${jobId}/blocks?page=4&status=approved`)).total)
      .toBe(MANY_BLOCKS_PER_PAGE);
    const before = await selected();
    expect(before).toBe(b(3 * MANY_BLOCKS_PER_PAGE + 3));
    await desk.page.reload();
    await deskLoaded();
    await expect.poll(() => selected()).toBe(before);
    expect(desk.page.url()).toContain(`block=${before}`);
    await shot(desk.page, shots, '4-after-reload');
    expect(desk.logs.filter((l) => /pageerror|Content Security Policy|Throttling navigation/.test(l))).toEqual([]);
  });
});

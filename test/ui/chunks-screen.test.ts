import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, listAll } from '../helpers/app.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { deskPage } from './helpers/browser.js';
import { useDeskBrowser } from './helpers/desk.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The Chunks list fills the screen: it was once 2 px tall at every window size, so the reviewer pressed a, r
// and e on chunks nobody could see. In Debian's chromium against the real server on a generated long PDF, at
// three window sizes: the list fills the screen below the toolbar, its rows are really on screen (the
// browser hit-tests them, which a clipped row fails), the selection stays in view as it moves, approving
// changes the row the reviewer sees, and after a reload the screen shows what GET /jobs/{id}/chunks holds.

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
  { width: 800, height: 600 },
] as const;
const ROW = 96; // renderer/src/chunks/chunks-screen.ts
const shots = screenshotDir('chunks-screen');
let jobId = '';
const desk = useDeskBrowser({
  seed: async (server) => {
    // Small chunks so there are many more than the tallest window shows: moving the selection must scroll.
    jobId = (await ingest(server, 'long.pdf', await makeLongPdf(12), { chunk_size: '128', chunk_overlap: '16' }))
      .job_id;
  },
  timeout: 180_000,
});

interface ChunkItem {
  chunk_id: string;
  status: string;
  text: string;
  edited_text: string | null;
}
const chunksOf = async () => (await listAll(desk.server, `/jobs/${jobId}/chunks`)) as ChunkItem[];

/** Where the toolbar ends, the list's box, and each drawn row's box and whether the browser hit-tests it. */
function geometry(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height };
    };
    const list = document.querySelector('.chunks .vlist')!;
    const rows = Array.from(list.querySelectorAll<HTMLElement>('.chunk-row'), (el) => {
      const r = box(el);
      // elementFromPoint honours the list's clipping: a row drawn under a 2 px list is not found there.
      const x = (r.left + r.right) / 2;
      const y = Math.min(r.top + 12, r.bottom - 1);
      const hit = y >= 0 && y < innerHeight && el.contains(document.elementFromPoint(x, y));
      return { id: el.dataset.chunk ?? '', selected: el.classList.contains('selected'), hit, ...r };
    });
    return { toolbar: box(document.querySelector('.chunks .toolbar')!), list: box(list), rows };
  });
}
type Geometry = Awaited<ReturnType<typeof geometry>>;

/** Rows whose whole box lies inside both the list's box and the window, and that the browser finds there. */
const seenRows = (g: Geometry, vh: number, vw: number) =>
  g.rows.filter(
    (r) =>
      r.hit &&
      r.height > 0 &&
      r.top >= g.list.top &&
      r.bottom <= g.list.bottom + 0.5 &&
      r.top >= 0 &&
      r.bottom <= vh &&
      r.left >= 0 &&
      r.right <= vw,
  );

async function openChunks(size: { width: number; height: number }): Promise<{ page: Page; logs: string[] }> {
  const { page, logs } = await deskPage(desk.browser, desk.server, { viewport: size });
  await page.waitForSelector(`tr[data-job="${jobId}"]`);
  await page.evaluate((id) => (location.hash = `#/jobs/${id}/chunks`), jobId);
  await page.waitForSelector('.chunks[data-loaded=true]');
  return { page, logs };
}

describe.each(SIZES)('the Chunks screen at $width x $height', (size) => {
  const name = `${size.width}x${size.height}`;
  let page: Page;
  let logs: string[];
  beforeAll(async () => {
    ({ page, logs } = await openChunks(size));
  });
  afterAll(async () => {
    await page?.close();
  });

  it('fills the window below the toolbar with chunk rows that are on screen', async () => {
    const total = (await chunksOf()).length;
    const g = await geometry(page);
    await shot(page, shots, `${name}-1-open`);
    const below = size.height - g.toolbar.bottom;
    // The section's padding and gap take 16 px; the rest is the list's.
    expect(g.list.top).toBeGreaterThanOrEqual(g.toolbar.bottom);
    expect(g.list.bottom).toBeLessThanOrEqual(size.height);
    expect(g.list.height).toBeGreaterThan(0.9 * below);
    const fit = Math.floor((g.list.height - 2) / ROW);
    expect(total).toBeGreaterThan(fit + 3);
    const seen = seenRows(g, size.height, size.width);
    expect(seen.length).toBeGreaterThanOrEqual(fit);
    for (const r of seen) expect(r.height).toBe(ROW);
    // The first chunks, in order, are the rows seen.
    const ids = (await chunksOf()).slice(0, seen.length).map((c) => c.chunk_id);
    expect(seen.map((r) => r.id)).toEqual(ids);
    expect(seen[0]?.selected).toBe(true);
  });

  it('keeps the selected chunk in view as j and k move it, and approving changes the row seen', async () => {
    const g0 = await geometry(page);
    const fit = Math.floor((g0.list.height - 2) / ROW);
    const before = await chunksOf();
    // The first pending chunk past the first screenful: reaching it scrolls the list.
    const target = before.findIndex((c, i) => i > fit + 1 && c.status === 'pending');
    expect(target).toBeGreaterThan(fit);
    const selectedSeen = async () => {
      const g = await geometry(page);
      const seen = seenRows(g, size.height, size.width);
      return seen.find((r) => r.selected)?.id ?? null;
    };
    for (let i = 1; i <= target + 1; i++) {
      await page.keyboard.press('j');
      await expect.poll(selectedSeen).toBe(before[i]?.chunk_id);
    }
    await page.keyboard.press('k');
    await expect.poll(selectedSeen).toBe(before[target]?.chunk_id);
    await shot(page, shots, `${name}-2-moved`);

    const id = before[target]!.chunk_id;
    const row = page.locator(`.chunk-row[data-chunk="${id}"]`);
    expect(await row.locator('.badge.status').textContent()).toBe('pending');
    await page.keyboard.press('a');
    await expect.poll(async () => (await chunksOf())[target]?.status).toBe('approved');
    // The reviewer sees it: the row, still on screen, now reads approved; the selection moved on, in view.
    await expect.poll(() => row.locator('.badge.status').textContent()).toBe('approved');
    expect(await row.getAttribute('class')).toContain('status-approved');
    const g = await geometry(page);
    const seen = seenRows(g, size.height, size.width);
    expect(seen.map((r) => r.id)).toContain(id);
    expect(seen.find((r) => r.selected)?.id).toBe(before[target + 1]?.chunk_id);
    await shot(page, shots, `${name}-3-approved`);
  });

  it('shows after a reload what GET /jobs/{id}/chunks holds', async () => {
    await page.reload();
    await page.waitForSelector('.chunks[data-loaded=true]');
    await shot(page, shots, `${name}-4-reloaded`);
    const chunks = await chunksOf();
    const shown = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('.chunks .chunk-row'), (el) => ({
        id: el.dataset.chunk ?? '',
        status: el.querySelector('.badge.status')?.textContent ?? '',
        text: el.querySelector('.row-text')?.textContent ?? '',
      })),
    );
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).toEqual(
      chunks.slice(0, shown.length).map((c) => ({ id: c.chunk_id, status: c.status, text: c.edited_text ?? c.text })),
    );
    const pending = chunks.filter((c) => c.status === 'pending').length;
    expect(await page.textContent('.chunks .counts')).toBe(`${chunks.length} chunks · ${pending} pending`);
    expect(pending).toBeLessThan(chunks.length);
    const g = await geometry(page);
    expect(seenRows(g, size.height, size.width).length).toBeGreaterThanOrEqual(Math.floor((g.list.height - 2) / ROW));
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});

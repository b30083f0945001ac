import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, ingest, listPage } from '../helpers/app.js';
import { signIn, watchedTab } from './helpers/browser.js';
import { useDeskBrowser } from './helpers/desk.js';
import { selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The desk on a scanned PDF read by the real OCR: the rendered page image under the block boxes and the
// flagged-first queue from the server's own confidence and flags. Then the same job against a server that
// lacks the optional routes (their entries removed from /openapi.json in the browser): the desk draws the
// page from the boxes alone and hides embedding, search and chat instead of failing.

const SCAN = join(fixturesDir, 'scanned', 'scan05-beamer-slide4.pdf');
const OPTIONAL = /\/pages\/\{[^}]+\}\/image$|\/embed$|^\/models$|^\/search$|^\/chat/;
const shots = screenshotDir('optional-features');
let jobId = '';
const desk = useDeskBrowser({
  seed: async (server) => {
    jobId = (await ingest(server, 'scan05-beamer-slide4.pdf', readFileSync(SCAN))).job_id;
  },
  timeout: 180_000,
});

async function openDesk(stripOptional: boolean): Promise<{ page: Page; logs: string[]; images: string[] }> {
  const { page, logs } = await watchedTab(desk.browser);
  const images: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/pages/')) images.push(new URL(r.url()).pathname + new URL(r.url()).search);
  });
  if (stripOptional) {
    await page.route(`${desk.server.url}/openapi.json`, async (route) => {
      const doc = (await (await route.fetch()).json()) as { paths: Record<string, unknown> };
      for (const p of Object.keys(doc.paths)) if (OPTIONAL.test(p)) delete doc.paths[p];
      await route.fulfill({ json: doc });
    });
  }
  await signIn(page, desk.server);
  await page.click(`tr[data-job="${jobId}"] a.button`);
  await page.waitForSelector('.review[data-loaded=true]');
  return { page, logs, images };
}

describe('a scanned document on a server with page images and OCR confidence', () => {
  let page: Page;
  let images: string[];
  beforeAll(async () => {
    ({ page, images } = await openDesk(false));
  });

  it('draws the rendered page under the OCR block boxes, fetching only the pages looked at', async () => {
    await page.waitForSelector('.page-image:not([hidden])');
    const img = await page
      .locator('.page-image')
      .evaluate((el: HTMLImageElement) => ({ blob: el.src.startsWith('blob:'), w: el.naturalWidth }));
    expect(img).toEqual({ blob: true, w: 800 });
    const blocks = await listPage(desk.server, `/jobs/${jobId}/blocks?limit=500`);
    expect(await page.locator('.page-sheet .box').count()).toBe(
      blocks.items.filter((b: { bbox: unknown }) => b.bbox).length,
    );
    expect(await page.locator('.block-row .badge.ocr').count()).toBeGreaterThan(0);
    // The page on screen, then the next one asked ahead (a 404 here: the scan has one page).
    expect(images.length).toBeGreaterThan(0);
    // (The thumbnail strip's small images, size=160, are of the pages in the strip: this one-page scan's only.)
    expect(images.filter((u) => !u.endsWith('size=160')).every((u) => /\/pages\/[12]\/image\?size=800$/.test(u))).toBe(
      true,
    );
    expect(images.filter((u) => u.endsWith('size=160')).every((u) => /\/pages\/1\/image\?size=160$/.test(u))).toBe(
      true,
    );
    await shot(page, shots, '1-scan-page-image');
  });

  it('puts the flagged blocks first, least confident first, as the server flagged them', async () => {
    const flagged = (await listPage(desk.server, `/jobs/${jobId}/blocks?flagged=true&sort=confidence&limit=500`))
      .items as {
      block_id: string;
    }[];
    expect(flagged.length).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('q');
    for (const [i, b] of flagged.entries()) {
      if (i) await page.keyboard.press('j');
      expect(await selectedBlock(page)).toBe(b.block_id);
      expect(await page.locator('.vlist .block-row.selected .conf.flagged').count()).toBe(1);
    }
    expect(await page.locator('.page-sheet .box.flagged').count()).toBe(flagged.length);
    await shot(page, shots, '2-flagged-first');
  });
});

describe('the same job on a server without the optional routes', () => {
  it('draws the page from the boxes alone and hides embedding, search and chat', async () => {
    const { page, logs, images } = await openDesk(true);
    expect(await page.locator('.page-image').isHidden()).toBe(true);
    expect(await page.locator('.page-sheet .box').count()).toBeGreaterThan(3);
    expect(images).toEqual([]);
    expect(await page.locator('nav.tabs a[href$="/search"]').count()).toBe(0);
    await shot(page, shots, '3-without-page-images');
    await page.click('nav.tabs a[href$="/finalize"]');
    await page.waitForSelector('.finalize[data-status]');
    expect(await page.locator('section.embed').count()).toBe(0);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});

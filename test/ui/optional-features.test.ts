import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, ingest, json, startServer, type TestServer } from '../helpers/app.js';
import { launchChromium, watchConsole } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The desk on a scanned PDF read by the real OCR: the rendered page image under the block boxes and the
// flagged-first queue from the server's own confidence and flags. Chat (issue 5) is not in the server yet:
// its routes are answered in the browser with the shapes its issue and the spec give (sessions, SSE events
// sources/token/done, pending_review and resume), to show the UI turns chat on when /openapi.json lists it.

const SCAN = join(fixturesDir, 'scanned', 'scan05-beamer-slide4.pdf');
const shots = screenshotDir('optional-features');
let server: TestServer;
let browser: Browser;
let page: Page;
let logs: string[];
let jobId = '';
const imageRequests: string[] = [];
const resumed: unknown[] = [];
let serverHasChat = false;

async function simulatedChat(route: Route): Promise<void> {
  const req = route.request();
  const url = new URL(req.url());
  if (url.pathname === '/openapi.json') {
    const doc = (await (await route.fetch()).json()) as { paths: Record<string, unknown> };
    serverHasChat = '/chat' in doc.paths;
    for (const p of ['/chat', '/chat/sessions', '/chat/resume']) doc.paths[p] ??= { post: {} };
    return route.fulfill({ json: doc });
  }
  if (url.pathname.includes('/pages/')) imageRequests.push(url.pathname + url.search);
  if (serverHasChat) return route.continue();
  if (url.pathname === '/chat/sessions') return route.fulfill({ json: { session_id: 's1' } });
  if (url.pathname === '/chat') {
    const source = { chunk_id: 'c1', text: 'cited text', score: 0.83, page_numbers: [1], block_ids: ['b6'] };
    const events = [
      ['sources', { sources: [source] }],
      ['token', { token: 'The slide shows ' }],
      ['token', { token: 'a flagged line.' }],
      ['done', { session_id: 's1', turn_id: 't1', thread_id: 'th1', status: 'pending_review', answer: 'The slide shows a flagged line.', sources: [source] }],
    ];
    return route.fulfill({ contentType: 'text/event-stream', body: events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('') });
  }
  if (url.pathname === '/chat/resume') {
    resumed.push(req.postDataJSON());
    return route.fulfill({ json: { session_id: 's1', turn_id: 't1', status: 'complete', answer: 'The slide shows a flagged line.' } });
  }
  return route.continue();
}

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer();
  jobId = (await ingest(server, 'scan05-beamer-slide4.pdf', readFileSync(SCAN))).job_id;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  logs = watchConsole(page);
  await page.route(`${server.url}/**`, simulatedChat);
  await page.goto(`${server.url}/`);
  await page.fill('input[name=api-key]', server.key);
  await page.click('.key-form button[type=submit]');
  await page.waitForSelector(`tr[data-job="${jobId}"]`);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a scanned document, and features beyond review', () => {
  it('draws the rendered page under the OCR block boxes, fetching only the pages looked at', async () => {
    await page.click(`tr[data-job="${jobId}"] a.button`);
    await page.waitForSelector('.review[data-loaded=true]');
    await page.waitForSelector('.page-image:not([hidden])');
    const img = await page.locator('.page-image').evaluate((el: HTMLImageElement) => ({ blob: el.src.startsWith('blob:'), w: el.naturalWidth, h: el.naturalHeight }));
    expect(img.blob).toBe(true);
    expect(img.w).toBe(800);
    const boxes = await json(await server.call('GET', `/jobs/${jobId}/blocks?limit=500`));
    expect(await page.locator('.page-sheet .box').count()).toBe(boxes.items.filter((b: { bbox: unknown }) => b.bbox).length);
    expect(await page.locator('.block-row .badge.ocr').count()).toBeGreaterThan(0);
    // The one page, and the next one asked ahead (a 404 here: the scan has one page).
    expect(imageRequests.every((u) => /\/pages\/[12]\/image\?size=800$/.test(u))).toBe(true);
    await shot(page, shots, '1-scan-page-image');
  });

  it('puts the flagged blocks first, least confident first, as the server flagged them', async () => {
    const flagged = (await json(await server.call('GET', `/jobs/${jobId}/blocks?flagged=true&sort=confidence&limit=500`))).items as { block_id: string }[];
    expect(flagged.length).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('q');
    for (const [i, b] of flagged.entries()) {
      if (i) await page.keyboard.press('j');
      expect(await page.locator('.vlist .block-row.selected').getAttribute('data-block')).toBe(b.block_id);
      expect(await page.locator('.vlist .block-row.selected .conf.flagged').count()).toBe(1);
    }
    expect(await page.locator('.page-sheet .box.flagged').count()).toBe(flagged.length);
    await shot(page, shots, '2-flagged-first');
    await page.keyboard.press('q');
  });

  it('streams a cited chat answer, opens the citation and approves the answer', async () => {
    await page.click('nav.tabs a[href$="/search"]');
    await page.fill('.chat textarea', 'What does the slide say?');
    await page.check('.chat input[type=checkbox]');
    await page.press('.chat textarea', 'Enter');
    await expect.poll(() => page.textContent('.chat .answer')).toBe('The slide shows a flagged line.');
    expect(await page.getAttribute('.chat .sources a', 'href')).toBe(`#/jobs/${jobId}/review?block=b6`);
    await shot(page, shots, '3-chat');
    await page.click('.chat .resume button:text("approve")');
    await expect.poll(() => resumed).toEqual([{ session_id: 's1', thread_id: 'th1', action: 'approve' }]);
    await page.click('.chat .sources a');
    await page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => page.locator('.vlist .block-row.selected').getAttribute('data-block')).toBe('b6');
    expect(await page.locator('.page-sheet .box.selected[data-block=b6]').count()).toBe(1);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});

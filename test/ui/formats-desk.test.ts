/**
 * Spreadsheets and slides in the review desk, as it shows other documents: an XLSX's sheet is a table
 * block among the rows (its cells on screen), a PPTX's blocks come in slide order with their speaker notes.
 * Screenshots go under test-output/ui/formats-desk.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, startServer, type TestServer } from '../helpers/app.js';
import { makePptx, makeXlsx } from '../helpers/make-office.js';
import { deskSession } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

const shots = screenshotDir('formats-desk');
let server: TestServer;
let browser: Browser;
let page: Page;
let logs: string[];

async function openReview(jobId: string): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${server.url}/#/jobs/${jobId}/review`);
  await page.waitForSelector('.review[data-loaded=true]');
}

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer();
  ({ browser, page, logs } = await deskSession(server));
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('spreadsheets and slides in the desk', () => {
  it('shows an XLSX sheet as a table block with its cells', async () => {
    const data = await makeXlsx([
      {
        name: 'Sales',
        rows: [
          ['Region', 'Units'],
          ['North', 120],
          ['South', 80],
        ],
      },
    ]);
    const job = await ingest(server, 'sales.xlsx', data);
    await openReview(job.job_id);
    const rows = page.locator('.vlist .block-row');
    await expect.poll(() => rows.count()).toBe(2);
    const table = rows.nth(1);
    await expect.poll(() => table.textContent()).toContain('North');
    expect(await table.textContent()).toContain('Region');
    expect(await rows.nth(0).textContent()).toContain('Sales');
    await shot(page, shots, '1-xlsx');
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('shows a PPTX deck in slide order with its speaker notes', async () => {
    const data = await makePptx([
      { title: 'Opening', bullets: [{ text: 'Why we are here' }], notes: 'Smile.' },
      { title: 'Closing', text: 'Thank you.' },
    ]);
    const job = await ingest(server, 'talk.pptx', data);
    await openReview(job.job_id);
    const rows = page.locator('.vlist .block-row');
    await expect.poll(() => rows.count()).toBe(5);
    const texts = await rows.allTextContents();
    expect(texts.findIndex((t) => t.includes('Opening'))).toBeLessThan(texts.findIndex((t) => t.includes('Closing')));
    expect(texts.some((t) => t.includes('Speaker notes: Smile.'))).toBe(true);
    await shot(page, shots, '2-pptx');
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, startServer, type TestServer } from '../helpers/app.js';
import { makeManyBlocksPdf } from '../helpers/make-pdf.js';
import { launchChromium } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// A 10,000-block job (334 pages of one-line paragraphs) must open in under 2 s and stay fluid: the list
// is virtualised and the blocks load behind the first 100. Figures go to test-output/ui/large-job/.
// Times are taken inside the page (performance.now and the review screen's User Timing marks): this test
// process also runs the server, whose work on the other 9,900 blocks delays what Playwright sees.

const BLOCKS = 10_000;
const shots = screenshotDir('large-job');
let server: TestServer;
let browser: Browser;
let page: Page;
let jobId = '';
const figures: Record<string, number> = {};

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer();
  jobId = (await ingest(server, 'many-blocks.pdf', await makeManyBlocksPdf(BLOCKS), undefined)).job_id;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${server.url}/`);
  await page.fill('input[name=api-key]', server.key);
  await page.click('.key-form button[type=submit]');
  await page.waitForSelector(`tr[data-job="${jobId}"]`);
}, 600_000);
afterAll(async () => {
  writeFileSync(join(shots, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`large job figures: ${JSON.stringify(figures)}\n`);
  await browser?.close();
  await server?.close();
});

/** Sets the page's t0, changes the route and waits until `ready` holds in the page. */
async function navigateAndWait(hash: string, ready: () => unknown): Promise<void> {
  await page.evaluate((h) => {
    (window as unknown as { t0: number }).t0 = performance.now();
    location.hash = h;
  }, hash);
  await page.waitForFunction(ready, undefined, { polling: 'raf', timeout: 30_000 });
}

describe(`a job of ${BLOCKS} blocks`, () => {
  it('opens in under 2 s with the page drawn and the list usable', async () => {
    const marksSince = () =>
      page.evaluate(() => {
        const t0 = (window as unknown as { t0: number }).t0;
        const at = (name: string) => Math.round((performance.getEntriesByName(name).pop()?.startTime ?? NaN) - t0);
        return {
          mounted: at('review:open'),
          first_blocks: at('review:first-blocks'),
          first_drawn: at('review:first-drawn'),
          first_painted: at('review:first-painted'),
        };
      });
    // A function, not a string: the page's CSP forbids eval, which string predicates need.
    // The painted mark is set a task after the frame that draws the rows: read the marks only once it is there.
    const drawn = () => {
      const t0 = (window as unknown as { t0: number }).t0;
      const painted = performance.getEntriesByName('review:first-painted').some((m) => m.startTime >= t0);
      return (
        painted &&
        Boolean(
          document.querySelector('.vlist .block-row[data-block]') &&
            document.querySelector('.page-sheet .box.selected'),
        )
      );
    };
    await navigateAndWait(`#/jobs/${jobId}/review`, drawn);
    // Where the time went: the marks the review screen sets (renderer/src/review/review-screen.ts).
    const marks = await marksSince();
    figures.open_ms = marks.first_painted;
    figures.open_mount_ms = marks.mounted;
    figures.open_first_100_blocks_ms = marks.first_blocks;
    figures.open_first_drawn_ms = marks.first_drawn;
    figures.all_loaded_ms = Math.round(
      await page.evaluate(async () => {
        const t0 = (window as unknown as { t0: number }).t0;
        while (!document.querySelector('.review[data-loaded=true]')) await new Promise((r) => setTimeout(r, 10));
        return performance.now() - t0;
      }),
    );
    // A second open, with the browser warm, as a reviewer returning to the job would see it.
    await page.evaluate(() => (location.hash = '#/'));
    await page.waitForSelector('section.library');
    await navigateAndWait(`#/jobs/${jobId}/review`, drawn);
    figures.reopen_ms = (await marksSince()).first_painted;
    await page.waitForSelector('.review[data-loaded=true]');
    expect(await page.textContent('.loading-note')).toBe(`${BLOCKS} blocks`);
    expect(figures.open_ms).toBeLessThan(2000);
    expect(figures.reopen_ms).toBeLessThan(2000);
    await shot(page, shots, 'opened');
  });

  it('keeps only the visible rows in the DOM', async () => {
    figures.rows_in_dom = await page.locator('.vlist .vlist-row').count();
    expect(figures.rows_in_dom).toBeLessThan(60);
  });

  it('scrolls the whole list as smoothly as the page idles', async () => {
    // Frame gaps with the page idle, then while scrolling 900 px a frame through the 10,000 rows. On a
    // shared 2-core machine both include time the CPU spent elsewhere; the scroll must cost no frames of
    // its own beyond that (and stay under 50 ms a frame at the 95th percentile when the machine is calm).
    const frames = await page.evaluate(async () => {
      const list = document.querySelector('.review .vlist') as HTMLElement;
      const run = (ms: number, step: () => void) =>
        new Promise<number[]>((resolve) => {
          const deltas: number[] = [];
          let last = performance.now();
          const end = last + ms;
          const frame = (now: number) => {
            deltas.push(now - last);
            last = now;
            step();
            if (now < end) requestAnimationFrame(frame);
            else resolve(deltas.sort((a, b) => a - b));
          };
          requestAnimationFrame(frame);
        });
      const p95 = (d: number[]) => d[Math.floor(d.length * 0.95)] ?? 0;
      const idle = await run(1000, () => undefined);
      const scroll = await run(2000, () => (list.scrollTop += 900));
      return {
        idleP95: p95(idle),
        count: scroll.length,
        p95: p95(scroll),
        max: scroll[scroll.length - 1] ?? 0,
        scrolledTo: list.scrollTop,
        rowsDrawn: list.querySelectorAll('.block-row[data-block]').length,
      };
    });
    figures.idle_frame_p95_ms = Math.round(frames.idleP95 * 10) / 10;
    figures.scroll_frames = frames.count;
    figures.scroll_frame_p95_ms = Math.round(frames.p95 * 10) / 10;
    figures.scroll_frame_max_ms = Math.round(frames.max * 10) / 10;
    figures.scrolled_px = Math.round(frames.scrolledTo);
    expect(frames.rowsDrawn).toBeGreaterThan(0);
    expect(frames.p95).toBeLessThanOrEqual(Math.max(50, frames.idleP95 * 1.5));
  });

  it('moves block by block and jumps pages at keyboard speed', async () => {
    await page.click('.review .vlist');
    const t0 = Date.now();
    for (let i = 0; i < 50; i++) await page.keyboard.press('j');
    figures.next_block_ms = Math.round((Date.now() - t0) / 50);
    await page.fill('.page-input', '300');
    await page.press('.page-input', 'Enter');
    await page.waitForFunction(() => document.querySelector('.page-caption')?.textContent === 'Page 300');
    expect(await page.locator('.page-sheet .box').count()).toBe(30);
    await shot(page, shots, 'page-300');
  });
});

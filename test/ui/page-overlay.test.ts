import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { fixturesDir, ingest, json, listPage } from '../helpers/app.js';
import { makePagesPdf, PAPER } from '../helpers/make-pdf.js';
import { signIn, watchConsole } from './helpers/browser.js';
import { useDesk } from './helpers/desk.js';
import { type BBox, drawnBoxes } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Do the desk's block boxes sit on the text of the page? Every fixture PDF (pdfs/ and the OCRed scans/, and
// generated Letter, A4 and /Rotate-turned pages) goes through the real server; for every page of each,
// chromium draws the desk and each box's place is read relative to the drawn page image. That place
// is checked against poppler's own rendering of the page (pdftoppm at 72 dpi, one pixel a point, so it
// knows the page size for itself): the dark pixels of the block's region there must fall inside the
// drawn box, and the box must not reach past the region. Boxes drawn on a wrongly sized page (the
// estimate the desk used before the server reported sizes: Letter pages read as A4 and A4 as Letter)
// miss by 10-200 px, most towards the foot of the page: with it, this test fails on survival-tiedtimes,
// tugboat-babelbib, zoo-jss-paper and the generated pages. Screenshots (of the first, second and middle
// page of each: enough to see every layout) and per-page figures (worst share of ink covered, worst
// overhang, and the time each document's pages took) go to test-output/ui/page-overlay/.

const shots = screenshotDir('page-overlay');
const scratch = mkdtempSync(join(tmpdir(), 'lectern-overlay-'));
/** A grey level below this is ink (pdftoppm anti-aliases 72 dpi text into greys). */
const INK = 160;
/** A region whose usual grey is below this is a dark ground: its text may be light letters on it. */
const LIGHT_ON_DARK = 230;
/** Pixels a drawn box may be off its region: CSS percentages round to device pixels, pdftoppm to whole points. */
const SLACK = 1.5;

interface Doc {
  name: string;
  file: string;
  jobId: string;
  pages: number[];
  /** The pages photographed for the test output: first, second and middle. */
  shots: number[];
}
interface Grey {
  width: number;
  height: number;
  data: Uint8Array;
}

const docs: Doc[] = [];
const figures: Record<string, unknown> = {};
const everyPage = (total: number): number[] => Array.from({ length: total }, (_, i) => i + 1);
const pagesToShoot = (total: number): number[] => [...new Set([1, 2, Math.ceil(total / 2)])].filter((p) => p <= total);
const desk = useDesk({
  seed: async (server) => {
    const generated = join(scratch, 'letter-a4-turned.pdf');
    writeFileSync(
      generated,
      await makePagesPdf([
        { size: PAPER.letter, title: 'A Letter page' },
        { size: PAPER.a4, title: 'An A4 page' },
        { size: PAPER.a4, rotate: 90, title: 'An A4 page turned a quarter' },
        { size: PAPER.letter, rotate: 270, title: 'A Letter page turned back' },
        { size: PAPER.a4, rotate: 180, title: 'An A4 page upside down' },
      ]),
    );
    const pdfsIn = (dir: string) =>
      readdirSync(join(fixturesDir, dir))
        .filter((f) => f.endsWith('.pdf'))
        .sort()
        .map((f) => join(fixturesDir, dir, f));
    // The scans are read by OCR, whose boxes come from pixels: the same check holds for them.
    const files = [...pdfsIn('pdfs'), ...pdfsIn('scanned'), generated];
    const jobs = await Promise.all(files.map((f) => ingest(server, basename(f), readFileSync(f))));
    for (const [i, job] of jobs.entries()) {
      const file = files[i] ?? '';
      docs.push({
        name: basename(file, '.pdf'),
        file,
        jobId: job.job_id,
        pages: everyPage(job.total_pages),
        shots: file === generated ? everyPage(job.total_pages) : pagesToShoot(job.total_pages),
      });
    }
  },
  timeout: 300_000,
});

/** Poppler's rendering of one page as 8-bit grey, 72 dpi (PGM: a text header, then one byte a pixel). */
function popplerPage(file: string, n: number): Grey {
  const out = join(scratch, `${basename(file, '.pdf')}-${n}`);
  execFileSync('pdftoppm', ['-r', '72', '-gray', '-f', String(n), '-l', String(n), '-singlefile', file, out]);
  const bytes = readFileSync(`${out}.pgm`);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error(`pdftoppm wrote no PGM for ${file} page ${n}`);
  return { width: Number(header[1]), height: Number(header[2]), data: bytes.subarray(header[0].length) };
}

/**
 * Which pixels of a region are its text: dark ones (below INK) on a light ground; where there are none,
 * light text on a dark ground (slide titles and buttons: white letters on a coloured band), the pixels
 * lighter than the region's usual grey by half the way to white.
 */
function inkTest(grey: Grey, x0: number, y0: number, x1: number, y1: number): (g: number) => boolean {
  const counts = new Array<number>(256).fill(0);
  let dark = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const g = grey.data[y * grey.width + x] ?? 255;
      counts[g] = (counts[g] ?? 0) + 1;
      if (g < INK) dark++;
    }
  }
  if (dark) return (g) => g < INK;
  const ground = counts.indexOf(Math.max(...counts));
  return ground < LIGHT_ON_DARK ? (g) => g > ground + (255 - ground) / 2 : () => false;
}

/**
 * How well a drawn box (in poppler pixels) sits on its block's region: the share of the region's ink
 * inside the box, and how far the box reaches past the region on its worst side.
 */
function overlayFit(grey: Grey, region: BBox, drawn: BBox): { ink: number; covered: number; overhang: number } {
  let ink = 0;
  let covered = 0;
  const x0 = Math.max(0, Math.floor(region.x0));
  const x1 = Math.min(grey.width, Math.ceil(region.x1));
  const y0 = Math.max(0, Math.floor(region.y0));
  const y1 = Math.min(grey.height, Math.ceil(region.y1));
  const isInk = inkTest(grey, x0, y0, x1, y1);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (!isInk(grey.data[y * grey.width + x] ?? 255)) continue;
      ink++;
      // A pixel counts as inside when its centre is.
      if (
        x + 0.5 >= drawn.x0 - SLACK &&
        x + 0.5 <= drawn.x1 + SLACK &&
        y + 0.5 >= drawn.y0 - SLACK &&
        y + 0.5 <= drawn.y1 + SLACK
      )
        covered++;
    }
  }
  const overhang = Math.max(region.x0 - drawn.x0, region.y0 - drawn.y0, drawn.x1 - region.x1, drawn.y1 - region.y1);
  return { ink, covered: ink ? covered / ink : 0, overhang };
}

/** Opens the desk on page `n` of the job and waits until its image and all its boxes are drawn. */
async function openPage(jobId: string, n: number, boxes: number, tab: Page = desk.page): Promise<void> {
  await tab.evaluate(([id, p]) => (location.hash = `#/jobs/${id}/review?page=${p}`), [jobId, n] as const);
  await pageDrawn(n, boxes, tab);
}

/** Moves the open desk to page `n` with its page field, as a reviewer would. */
async function goToPage(n: number, boxes: number, tab: Page): Promise<void> {
  await tab.fill('.page-input', String(n));
  await tab.press('.page-input', 'Enter');
  await pageDrawn(n, boxes, tab);
}

async function pageDrawn(n: number, boxes: number, tab: Page): Promise<void> {
  await tab.waitForFunction(
    ([p, count]) => {
      const img = document.querySelector<HTMLImageElement>('.review .page-image');
      return (
        document.querySelector('.review[data-loaded=true]') !== null &&
        document.querySelector('.review .page-caption')?.textContent === `Page ${p}` &&
        img !== null &&
        !img.hidden &&
        img.complete &&
        img.naturalWidth > 0 &&
        document.querySelectorAll('.review .page-sheet .box').length === count
      );
    },
    [n, boxes] as const,
    { polling: 100, timeout: 30_000 },
  );
}

/** A tab with the key given, recording what it asks the server for; `prepare` may reroute answers first. */
async function newDesk(
  prepare?: (p: Page) => Promise<void>,
): Promise<{ page: Page; logs: string[]; requests: string[] }> {
  const p = await desk.browser.newPage({ viewport: { width: 1400, height: 900 } });
  const requests: string[] = [];
  p.on('request', (r) => requests.push(new URL(r.url()).pathname + new URL(r.url()).search));
  const tabLogs = watchConsole(p);
  await prepare?.(p);
  await signIn(p, desk.server);
  return { page: p, logs: tabLogs, requests };
}

afterAll(() => {
  writeFileSync(join(shots, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  rmSync(scratch, { recursive: true, force: true });
});

describe('block boxes on the page image', () => {
  it('cover the ink of their block on every page of every fixture PDF and of Letter, A4 and turned pages', async () => {
    const misses: string[] = [];
    const started = performance.now();
    for (const doc of docs) {
      const docStarted = performance.now();
      for (const n of doc.pages) {
        const blocks = (await listPage(desk.server, `/jobs/${doc.jobId}/blocks?page=${n}&limit=500`)).items.filter(
          (b: { bbox: BBox | null }) => b.bbox,
        ) as { block_id: string; bbox: BBox; text: string }[];
        if (blocks.length === 0) continue;
        await openPage(doc.jobId, n, blocks.length);
        if (doc.shots.includes(n)) await shot(desk.page, shots, `${doc.name}-p${n}`);
        const drawn = await drawnBoxes(desk.page);
        const grey = popplerPage(doc.file, n);
        let worstCover = 1;
        let worstOverhang = 0;
        for (const b of blocks) {
          const d = drawn[b.block_id];
          if (!d) {
            misses.push(`${doc.name} p${n} ${b.block_id}: not drawn`);
            continue;
          }
          // Fractions of the drawn page to poppler's pixels: the drawn image and poppler's are the same page.
          const box = { x0: d.x0 * grey.width, y0: d.y0 * grey.height, x1: d.x1 * grey.width, y1: d.y1 * grey.height };
          const f = overlayFit(grey, b.bbox, box);
          const where = `${doc.name} p${n} ${b.block_id} "${b.text.slice(0, 30)}"`;
          if (f.ink === 0) misses.push(`${where}: no ink in its region ${JSON.stringify(b.bbox)}`);
          else if (f.covered < 0.98) misses.push(`${where}: box covers ${(f.covered * 100).toFixed(0)}% of its ink`);
          if (f.overhang > 3 + SLACK) misses.push(`${where}: box reaches ${f.overhang.toFixed(1)} px past its region`);
          if (f.ink) worstCover = Math.min(worstCover, f.covered);
          worstOverhang = Math.max(worstOverhang, f.overhang);
        }
        figures[`${doc.name} p${n}`] = {
          blocks: blocks.length,
          worst_cover: Math.round(worstCover * 1000) / 1000,
          worst_overhang_px: Math.round(worstOverhang * 10) / 10,
        };
      }
      figures[`${doc.name} seconds`] = {
        pages: doc.pages.length,
        seconds: Math.round((performance.now() - docStarted) / 100) / 10,
      };
    }
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const pages = docs.reduce((n, d) => n + d.pages.length, 0);
    figures.total = { pages, seconds };
    console.log(`overlay: ${pages} pages of ${docs.length} documents checked in ${seconds} s`);
    expect(misses).toEqual([]);
    // Every document had pages with boxes to check (none was skipped for having no blocks).
    expect(
      docs.filter((d) => !Object.keys(figures).some((k) => k.startsWith(`${d.name} p`))).map((d) => d.name),
    ).toEqual([]);
    expect(desk.logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    // Every page of ~140 is opened in the desk and rendered by pdftoppm: about 2-3 s a page on a busy 2-core machine.
  }, 900_000);
});

describe('where the desk gets page sizes', () => {
  const doc = (name: string) => docs.find((d) => d.name === name) as Doc;
  const boxesOn = async (jobId: string, n: number) =>
    (await listPage(desk.server, `/jobs/${jobId}/blocks?page=${n}&limit=500`)).items.filter(
      (b: { bbox: unknown }) => b.bbox,
    ).length as number;

  it('takes one size from the job when every page has it, and the pages listing a window at a time when they differ', async () => {
    const { page: tab, requests } = await newDesk();
    const uniform = doc('booktabs-manual');
    const job = await json(await desk.server.call('GET', `/jobs/${uniform.jobId}`));
    expect(job.page_size.pages).toBe(job.total_pages);
    await openPage(uniform.jobId, 2, await boxesOn(uniform.jobId, 2), tab);
    expect(requests.filter((r) => /\/pages\?/.test(r))).toEqual([]);
    const mixed = doc('letter-a4-turned');
    await openPage(mixed.jobId, 3, await boxesOn(mixed.jobId, 3), tab);
    for (const n of [4, 5, 1]) await goToPage(n, await boxesOn(mixed.jobId, n), tab);
    expect(requests.filter((r) => /\/pages\?/.test(r))).toEqual([`/jobs/${mixed.jobId}/pages?skip=0&limit=100`]);
    await tab.close();
  });

  it('estimates the page from its boxes only on a server that reports no sizes', async () => {
    const mixed = doc('letter-a4-turned');
    // An older server: no pages listing in its OpenAPI and no page_size on its jobs.
    const {
      page: tab,
      requests,
      logs: tabLogs,
    } = await newDesk(async (p) => {
      await p.route(`${desk.server.url}/openapi.json`, async (route) => {
        const spec = (await (await route.fetch()).json()) as { paths: Record<string, unknown> };
        delete spec.paths['/jobs/{job_id}/pages'];
        await route.fulfill({ json: spec });
      });
      await p.route(`${desk.server.url}/jobs/${mixed.jobId}`, async (route) => {
        const { page_size: _, ...job } = (await (await route.fetch()).json()) as Record<string, unknown>;
        await route.fulfill({ json: job });
      });
    });
    await openPage(mixed.jobId, 1, await boxesOn(mixed.jobId, 1), tab);
    await shot(tab, shots, 'estimated-without-sizes');
    expect(requests.filter((r) => /\/pages\?/.test(r))).toEqual([]);
    expect(tabLogs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    await tab.close();
  });
});

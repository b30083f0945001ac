/**
 * OCR through the HTTP API with the real server and worker pool: a scanned fixture PDF, a mixed PDF (text
 * page + scanned page), image documents (PNG, multi-page TIFF), flagged blocks and confidence order, page
 * images, re-reading a page or region, the language option, cancelling a job in the middle of OCR, and a
 * generated scan of a statistics page (formulas, code, a table) read with its operators and brackets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cer } from '../../bench/lib/ocr-cer.js';
import { enc, fixturesDir, ingest, json, listAll, listPage, startServer, type TestServer } from '../helpers/app.js';
import { formulaPagePdf } from '../helpers/make-formula-scan.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { greyTiff, makeScan, scanGrey, scansToPdf, textThenScanPdf, type Scan } from '../helpers/make-scan.js';
import { storedKeys } from '../helpers/stored-files.js';
import { useServer } from '../helpers/use-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const booktabs = new Uint8Array(readFileSync(join(fixturesDir, 'scanned/scan02-booktabs-p2.pdf')));

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

const server = useServer();
let scan: Scan;
let scanned: Record<string, any>;
beforeAll(async () => {
  scan = await makeScan(await makeStructuredPdf(), 1, { dpi: 200, noise: 12, specks: 0.001, skewDeg: 0.8, seed: 3 });
  scanned = await ingest(server, 'booktabs-scan.pdf', booktabs);
});

describe('OCR of scanned documents', () => {
  it('turns an image-only PDF into typed OCR blocks with boxes and confidence, and says so on the job', async () => {
    expect(scanned.pages_needing_ocr).toEqual([1]);
    expect(scanned.options.ocr_language).toBe('eng');
    expect(scanned.ocr.language).toBe('eng');
    expect(scanned.ocr.pages).toEqual([expect.objectContaining({ page: 1, language: 'eng', rotation: 0 })]);
    expect(scanned.ocr.pages[0].confidence).toBeGreaterThan(80);
    const blocks = await listAll(server, `/jobs/${scanned.job_id}/blocks`);
    expect(blocks.length).toBeGreaterThan(5);
    for (const b of blocks) {
      expect(b.source).toBe('ocr');
      expect(b.language).toBe('eng');
      expect(b.confidence).toBeGreaterThanOrEqual(0);
      expect(b.confidence).toBeLessThanOrEqual(100);
      expect(b.flagged).toBe(b.confidence < 70);
      expect(b.bbox.x0).toBeGreaterThanOrEqual(0);
      expect(b.bbox.x1).toBeLessThanOrEqual(595.28);
      expect(b.bbox.y1).toBeLessThanOrEqual(841.89);
    }
    expect(blocks.map((b) => b.type)).toEqual(expect.arrayContaining(['paragraph', 'table']));
    expect(blocks.map((b) => b.text).join('\n')).toContain('has been established over centuries of experience');
    const chunks = await listAll(server, `/jobs/${scanned.job_id}/chunks`);
    expect(chunks.length).toBeGreaterThan(0);
  });

  it('filters flagged blocks and sorts by confidence, lowest first', async () => {
    const flagged = await listPage(server, `/jobs/${scanned.job_id}/blocks?flagged=true`);
    expect(flagged.total).toBeGreaterThan(0);
    for (const b of flagged.items) expect(b.flagged && b.confidence < 70).toBe(true);
    const unflagged = await listPage(server, `/jobs/${scanned.job_id}/blocks?flagged=false&limit=500`);
    expect(flagged.total + unflagged.total).toBe(scanned.total_blocks);
    const sorted = (await listPage(server, `/jobs/${scanned.job_id}/blocks?sort=confidence&limit=500`)).items;
    const confidences = sorted.map((b: { confidence: number }) => b.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => a - b));
    expect(sorted[0].block_id).toBe(flagged.items.sort((a: any, b: any) => a.confidence - b.confidence)[0].block_id);
    const bad = await server.call('GET', `/jobs/${scanned.job_id}/blocks?sort=size`);
    expect(bad.status).toBe(400);
  });

  it('OCRs a scanned page whose text layer is only a stamped line, and leaves text pages alone', async () => {
    const stamp = 'Downloaded from the county archive on 23 November 2026';
    const pdf = await textThenScanPdf(['Born digital cover page', 'This text comes from the text layer.'], scan, stamp);
    const job = await ingest(server, 'stamped.pdf', pdf);
    expect(job.pages_needing_ocr).toEqual([2]);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks.filter((b) => b.page === 1).every((b) => b.source === 'text')).toBe(true);
    const page2 = blocks.filter((b) => b.page === 2);
    expect(page2.every((b) => b.source === 'ocr')).toBe(true);
    expect(page2.filter((b) => b.type === 'heading').map((b) => b.text)).toContain('Lectern Structured Sample');
    // The stamp is in the picture OCR reads, so it is not lost with the text layer.
    expect(page2.map((b) => b.text).join(' ')).toMatch(/county archive/);
  });

  it('OCRs only the pages without a text layer of a mixed PDF, in page order', async () => {
    const pdf = await textThenScanPdf(['Born digital cover page', 'This text comes from the text layer.'], scan);
    const job = await ingest(server, 'mixed.pdf', pdf);
    expect(job.pages_needing_ocr).toEqual([2]);
    expect(job.ocr.pages.map((p: { page: number }) => p.page)).toEqual([2]);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const page1 = blocks.filter((b) => b.page === 1);
    const page2 = blocks.filter((b) => b.page === 2);
    expect(page1.map((b) => b.source)).toEqual(page1.map(() => 'text'));
    expect(page1.every((b) => b.confidence === null && b.flagged === false)).toBe(true);
    expect(page2.length).toBeGreaterThan(3);
    expect(page2.every((b) => b.source === 'ocr')).toBe(true);
    expect(page2.filter((b) => b.type === 'heading').map((b) => b.text)).toContain('Lectern Structured Sample');
    expect(blocks.map((b) => b.page)).toEqual([...blocks.map((b) => b.page)].sort());
    const text = await listAll(server, `/jobs/${job.job_id}/blocks?source=text`);
    expect(text.length).toBe(page1.length);
  });

  it('reads image documents: a PNG and every page of a multi-page TIFF', async () => {
    const png = await ingest(server, 'scan.png', scan.png);
    expect(png.format).toBe('image');
    const pngBlocks = await listAll(server, `/jobs/${png.job_id}/blocks`);
    expect(pngBlocks.every((b) => b.source === 'ocr')).toBe(true);
    expect(pngBlocks.map((b) => b.text).join(' ')).toContain('Lectern Structured Sample');

    const turned = await makeScan(await makeStructuredPdf(), 1, { dpi: 150, turn: 180, seed: 4 });
    const small = await makeScan(await makeStructuredPdf(), 1, { dpi: 150, seed: 5 });
    const tiff = greyTiff([
      { ...small, data: await scanGrey(small) },
      { ...turned, data: await scanGrey(turned) },
    ]);
    const job = await ingest(server, 'two-pages.tif', tiff);
    expect(job.format).toBe('image');
    expect(job.total_pages).toBe(2);
    expect(job.ocr.pages.map((p: { page: number; rotation: number }) => [p.page, p.rotation])).toEqual([
      [1, 0],
      [2, 180],
    ]);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    // The TIFF says 150 dpi: its pages are A4 in points (at an assumed 300 dpi they would be half as wide).
    const right = Math.max(...blocks.map((b) => b.bbox.x1));
    expect(right).toBeGreaterThan(400);
    expect(right).toBeLessThanOrEqual(595.28);
    for (const page of [1, 2]) {
      expect(
        blocks
          .filter((b) => b.page === page)
          .map((b) => b.text)
          .join(' '),
        `page ${page}`,
      ).toContain('Introduction');
    }
  });
});

describe('OCR of formulas, code and tables', () => {
  it('keeps the operators, brackets and underscores of a scanned statistics page (formulas, a code listing, a table)', async () => {
    const page = await formulaPagePdf();
    const png = (await makeScan(page.pdf, 1, { dpi: 300, noise: 6, seed: 9 })).png;
    const job = await ingest(server, 'formulas.png', png, { ocr_language: 'eng' });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const text = blocks.map((b) => (b.table ? b.table.rows.flat().filter(Boolean).join(' ') : b.text)).join('\n');
    // An operator between words is text, not a rule: "n = 120", "1 - alpha", "for _ in" (they were dropped
    // as table rules), and a bracket the line closes later stays ("[0.31, 0.51]", "[alpha / 2, ...]").
    expect(text).toContain('With a = 0.05 and n = 120');
    expect(text).toContain('lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])');
    expect(text).toContain('for _ in range(b)]');
    expect(text).toContain('The intervals [0.31, 0.51] and [0.30, 0.50] overlap');
    expect(text).toContain('(z = 0.64, p = 0.52)');
    // Greek letters and math symbols stay hard for English data; the rest of the page reads nearly right.
    expect(cer(text, page.text)).toBeLessThan(0.085);
  });
});

describe('OpenAPI', () => {
  it('documents the page routes, the re-OCR answer and the new block fields', async () => {
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, any>;
    const image = spec.paths['/jobs/{job_id}/pages/{page}/image']?.get;
    expect(image.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['job_id', 'page', 'size']),
    );
    const reocr = spec.paths['/jobs/{job_id}/pages/{page}/ocr']?.post;
    const answer = reocr.responses['200'].content['application/json'].schema;
    expect(Object.keys(answer.properties)).toEqual(
      expect.arrayContaining(['read', 'suggestions', 'language', 'rotation']),
    );
    expect(Object.keys(reocr.requestBody.content['application/json'].schema.properties)).toEqual([
      'bbox',
      'dpi',
      'language',
      'apply',
    ]);
    const blockQuery = spec.paths['/jobs/{job_id}/blocks'].get.parameters.map((p: { name: string }) => p.name);
    expect(blockQuery).toEqual(expect.arrayContaining(['flagged', 'source', 'sort']));
  });
});

describe('unreadable images', () => {
  it('ends the job failed with OCR_IMAGE_INVALID when an image upload cannot be decoded', async () => {
    const broken = new Uint8Array([...scan.png.subarray(0, 64)]);
    const created = await json(await server.upload('broken.png', broken));
    expect(created.format).toBe('image');
    const job = await server.waitFor(created.job_id);
    expect(job.status).toBe('failed');
    expect(job.error.code).toBe('OCR_IMAGE_INVALID');
  });
});

describe('page images', () => {
  it('renders a page as PNG at the requested width and serves it from the disk cache after', async () => {
    const url = `/jobs/${scanned.job_id}/pages/1/image?size=300`;
    const first = await server.call('GET', url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await first.arrayBuffer());
    // The fixture is A4 (595.28 x 841.89 pt).
    expect(pngSize(bytes)).toEqual({ width: 300, height: Math.round((300 * 841.89) / 595.28) });
    expect(await storedKeys(server.dataDir, `files/${scanned.job_id}/page-images`)).toContain(
      `files/${scanned.job_id}/page-images/page-1-w300.png`,
    );
    const again = new Uint8Array(await (await server.call('GET', url)).arrayBuffer());
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    const deflt = await server.call('GET', `/jobs/${scanned.job_id}/pages/1/image`);
    expect(pngSize(new Uint8Array(await deflt.arrayBuffer())).width).toBe(1200);
  });

  it('renders a page of an image document', async () => {
    const job = await ingest(server, 'page.png', scan.png);
    const res = await server.call('GET', `/jobs/${job.job_id}/pages/1/image?size=200`);
    expect(res.status).toBe(200);
    expect(pngSize(new Uint8Array(await res.arrayBuffer())).width).toBe(200);
  });

  it('answers 404 past the last page, 409 for a format without pages, 400 for a bad size', async () => {
    const past = await server.call('GET', `/jobs/${scanned.job_id}/pages/2/image`);
    expect(past.status).toBe(404);
    expect((await json(past)).error.code).toBe('PAGE_NOT_FOUND');
    const md = await ingest(server, 'notes.md', enc('# Notes\n\nNo pages here.'));
    const flow = await server.call('GET', `/jobs/${md.job_id}/pages/1/image`);
    expect(flow.status).toBe(409);
    expect((await json(flow)).error.code).toBe('INVALID_STATE');
    const tiny = await server.call('GET', `/jobs/${scanned.job_id}/pages/1/image?size=10`);
    expect(tiny.status).toBe(400);
    expect((await json(tiny)).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('re-reading a page', () => {
  it('offers new text for the blocks a region covers and never overwrites a reviewed block', async () => {
    const job = await ingest(server, 'reread.pdf', await scansToPdf([scan]));
    const before = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const title = before.find((b) => b.text === 'Lectern Structured Sample')!;
    expect(title).toBeDefined();
    const approved = await server.call('PATCH', `/jobs/${job.job_id}/blocks/${title.block_id}`, {
      json: { version: title.version, status: 'approved' },
    });
    expect(approved.status).toBe(200);

    // The whole page at a low resolution: text changes here and there, the approved title must not.
    const res = await server.call('POST', `/jobs/${job.job_id}/pages/1/ocr`, { json: { dpi: 100 } });
    expect(res.status).toBe(200);
    const out = await json(res);
    expect(out).toMatchObject({ job_id: job.job_id, page: 1, language: 'eng', dpi: 100, bbox: null });
    expect(out.read.length).toBeGreaterThan(0);
    expect(out.suggestions.length).toBe(before.length);
    const titleOffer = out.suggestions.find((s: { block_id: string }) => s.block_id === title.block_id);
    expect(['reviewed', 'unchanged']).toContain(titleOffer.outcome);
    const after = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const byId = new Map(after.map((b) => [b.block_id, b]));
    expect(byId.get(title.block_id)).toMatchObject({
      text: title.text,
      status: 'approved',
      version: title.version + 1,
    });
    for (const s of out.suggestions) {
      const now = byId.get(s.block_id)!;
      const was = before.find((b) => b.block_id === s.block_id)!;
      if (s.outcome === 'applied') {
        expect(now.text).toBe(s.suggested_text);
        expect(now.version).toBe(was.version + 1);
        expect(now.confidence).toBe(s.confidence);
      } else if (s.block_id !== title.block_id) {
        expect(now.text).toBe(was.text);
        expect(now.version).toBe(was.version);
      }
    }
    const applied = out.suggestions.filter((s: { outcome: string }) => s.outcome === 'applied').length;
    const audit = await listPage(server, `/jobs/${job.job_id}/audit?action=reocr`);
    expect(audit.total).toBe(applied);
  });

  it('reads only a region, and with apply false changes nothing', async () => {
    const job = await ingest(server, 'region.pdf', await scansToPdf([scan]));
    const before = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const title = before.find((b) => b.text === 'Lectern Structured Sample')!;
    const bbox = { x0: title.bbox.x0 - 4, y0: title.bbox.y0 - 4, x1: title.bbox.x1 + 4, y1: title.bbox.y1 + 4 };
    const out = await json(
      await server.call('POST', `/jobs/${job.job_id}/pages/1/ocr`, { json: { bbox, dpi: 300, apply: false } }),
    );
    expect(out.bbox).toEqual(bbox);
    expect(out.suggestions.map((s: { block_id: string }) => s.block_id)).toEqual([title.block_id]);
    expect(out.suggestions[0].suggested_text).toBe('Lectern Structured Sample');
    expect(['unchanged', 'not_applied']).toContain(out.suggestions[0].outcome);
    for (const r of out.read) {
      expect(r.bbox.y0).toBeGreaterThanOrEqual(bbox.y0 - 0.01);
      expect(r.bbox.y1).toBeLessThanOrEqual(bbox.y1 + 0.01);
    }
    const after = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(after.map((b) => [b.text, b.version])).toEqual(before.map((b) => [b.text, b.version]));
  });

  it("re-reads a page of an image document at the image's own resolution, and says so", async () => {
    const job = await ingest(server, 'reread.png', scan.png);
    const before = await listAll(server, `/jobs/${job.job_id}/blocks`);
    // The PNG states no resolution, so it is read as 300 dpi: a dpi asked for changes nothing and the answer says 300.
    const res = await server.call('POST', `/jobs/${job.job_id}/pages/1/ocr`, { json: { dpi: 400, apply: false } });
    expect(res.status).toBe(200);
    const out = await json(res);
    expect(out).toMatchObject({ page: 1, language: 'eng', dpi: 300, rotation: 0 });
    expect(out.suggestions.length).toBe(before.length);
    expect(out.read.map((r: { text: string }) => r.text).join(' ')).toContain('Lectern Structured Sample');
    const width = (scan.width * 72) / 300;
    for (const r of out.read) expect(r.bbox.x1).toBeLessThanOrEqual(width + 0.01);
  });

  it('answers 400 for missing language data, a region off the page or a bad dpi, 404 for a page that does not exist', async () => {
    const lang = await server.call('POST', `/jobs/${scanned.job_id}/pages/1/ocr`, { json: { language: 'deu' } });
    expect(lang.status).toBe(409);
    expect((await json(lang)).error).toMatchObject({
      code: 'OCR_LANGUAGE_MISSING',
      details: { language: 'deu', missing: ['deu'], installed: ['eng'], install: 'lectern languages add deu' },
    });
    const page = await server.call('POST', `/jobs/${scanned.job_id}/pages/9/ocr`, { json: {} });
    expect(page.status).toBe(404);
    expect((await json(page)).error.code).toBe('PAGE_NOT_FOUND');
    const outside = await server.call('POST', `/jobs/${scanned.job_id}/pages/1/ocr`, {
      json: { bbox: { x0: 700, y0: 900, x1: 800, y1: 950 } },
    });
    expect(outside.status).toBe(400);
    expect((await json(outside)).error.code).toBe('OCR_REGION_INVALID');
    const dpi = await server.call('POST', `/jobs/${scanned.job_id}/pages/1/ocr`, { json: { dpi: 5000 } });
    expect(dpi.status).toBe(400);
    expect((await json(dpi)).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('OCR language option', () => {
  it('answers 409 with the installed languages and the command that adds the missing one, and creates no job', async () => {
    const before = (await json(await server.call('GET', '/jobs'))).total;
    const res = await server.upload('scan.pdf', booktabs, { ocr_language: 'fra' });
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.error.code).toBe('OCR_LANGUAGE_MISSING');
    expect(body.error.message).toMatch(/'fra'.*installed: eng.*lectern languages add fra/);
    expect(body.error.details).toEqual({
      language: 'fra',
      missing: ['fra'],
      installed: ['eng'],
      install: 'lectern languages add fra',
    });
    expect((await json(await server.call('GET', '/jobs'))).total).toBe(before);
    const path = await server.upload('scan.pdf', booktabs, { ocr_language: '../../etc' });
    expect(path.status).toBe(400);
    expect((await json(path)).error.code).toBe('OCR_LANGUAGE_UNKNOWN');
  });
});

describe('cancel during OCR', () => {
  let one: TestServer;
  beforeAll(async () => {
    one = await startServer({ settings: { workers: 1 } });
  });
  afterAll(async () => one?.close());

  it("stops the worker within a page's time (2 s on a quiet machine)", async () => {
    const pdf = await scansToPdf([scan, scan, scan, scan, scan, scan]);
    const created = await json(await one.upload('six-scans.pdf', pdf));
    const uploaded = Date.now();
    // Wait until the first page is done: the worker is then OCRing the second.
    for (let i = 0; ; i++) {
      const job = await json(await one.call('GET', `/jobs/${created.job_id}`));
      if (job.progress.pages_done >= 1) break;
      if (!['queued', 'processing'].includes(job.status) || i > 2400)
        throw new Error(`job ${job.status} before OCR progress`);
      await sleep(25);
    }
    // What one page costs on this machine now (a loaded machine reads every page slower): the stop must
    // come sooner than the rest of the pages would, and within 2 s when a page takes less than that.
    const onePage = Date.now() - uploaded;
    expect((await one.call('POST', `/jobs/${created.job_id}/cancel`)).status).toBe(200);
    const t0 = Date.now();
    // One worker thread: the next job can only run once the cancelled OCR has really stopped.
    const next = await ingest(one, 'after.md', enc('# After\n\ncancel'));
    expect(next.status).toBe('ready_for_review');
    expect(Date.now() - t0).toBeLessThan(Math.max(2000, 1.5 * onePage));
    await expect
      .poll(async () => (await json(await one.call('GET', `/jobs/${created.job_id}`))).status)
      .toBe('cancelled');
    const later = await json(await one.call('GET', `/jobs/${created.job_id}`));
    expect(later.progress.pages_done).toBeLessThan(6);
    expect(later.total_blocks).toBe(0);
  });
});

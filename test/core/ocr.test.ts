/**
 * OCR (server/core/ocr) on the image-only fixture scans of ../shared/fixtures/scanned and on scans made here
 * from a generated PDF whose text is known exactly: rendered, dirtied with noise and specks, skewed and
 * turned by quarter-turns, then read back as PDF pages, PNGs and a multi-page TIFF.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { blocksText, cer, orderFreeCer } from '../../bench/lib/ocr-cer.js';
import type { ExtractedBlock } from '../../server/core/extract/types.js';
import { imagePageCount, ocrImage, ocrPdfPage, type OcrPageResult } from '../../server/core/ocr/ocr-page.js';
import { isBlank, normalisePolarity } from '../../server/core/ocr/raster.js';
import { recognizeUpright } from '../../server/core/ocr/recognize.js';
import { getOcrEngine, installedLanguages, terminateOcrEngines } from '../../server/core/ocr/tesseract.js';
import { makeBlankPagePdf, makeStructuredPdf, onePagePdf, STRUCTURED_PDF } from '../helpers/make-pdf.js';
import { openPdf } from '../../server/core/extract/pdf/pdfjs-loader.js';
import { renderOpenPdfPageGrey } from '../../server/core/ocr/render-page.js';
import { greyTiff, makeScan, scanGrey, scansToPdf, type Scan } from '../helpers/make-scan.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const scannedDir = path.resolve(repoRoot, '../shared/fixtures/scanned');

/** Every block of an OCR result must be well-formed, whatever the page. */
function expectWellFormed(r: OcrPageResult): void {
  const { width, height } = r.page;
  expect(r.blocks.length).toBeGreaterThan(0);
  for (const b of r.blocks) {
    expect(b.source).toBe('ocr');
    expect(b.language).toBe('eng');
    expect(b.page).toBe(r.page.page);
    expect(b.text.trim()).not.toBe('');
    expect(b.confidence).toBeGreaterThanOrEqual(0);
    expect(b.confidence).toBeLessThanOrEqual(100);
    const box = b.bbox;
    expect(box).not.toBeNull();
    if (!box) continue;
    expect(box.x0).toBeGreaterThanOrEqual(0);
    expect(box.y0).toBeGreaterThanOrEqual(0);
    expect(box.x1).toBeLessThanOrEqual(width);
    expect(box.y1).toBeLessThanOrEqual(height);
    expect(box.x1).toBeGreaterThan(box.x0);
    expect(box.y1).toBeGreaterThan(box.y0);
    if (b.table) {
      const cols = b.table.rows[0]?.length ?? 0;
      expect(cols).toBeGreaterThanOrEqual(2);
      for (const row of b.table.rows) expect(row).toHaveLength(cols);
    }
  }
  expect(r.page.ocr.lang).toBe('eng');
}

/** CER of each known page-1 paragraph against the OCR block that matches it best. */
function worstParagraphCer(blocks: readonly ExtractedBlock[]): number {
  const known = STRUCTURED_PDF.paragraphs.filter((p) => p.page === 1).map((p) => p.text);
  return Math.max(...known.map((ref) => Math.min(...blocks.map((b) => cer(b.text, ref)))));
}

function headingTexts(blocks: readonly ExtractedBlock[]): string[] {
  return blocks.filter((b) => b.type === 'heading').map((b) => b.text);
}

afterAll(async () => {
  await terminateOcrEngines();
});

describe('OCR of the fixture scans', () => {
  it('reads the booktabs page: text, tables, boxes and confidence', async () => {
    const data = new Uint8Array(readFileSync(path.join(scannedDir, 'scan02-booktabs-p2.pdf')));
    const gt = readFileSync(path.join(scannedDir, 'gt/scan02-booktabs-p2.txt'), 'utf8');
    const r = await ocrPdfPage(data, 1);
    expectWellFormed(r);
    expect(r.page.ocr.rotation).toBe(0);
    expect(r.page.ocr.confidence).toBeGreaterThan(80);
    const text = blocksText(r.blocks);
    expect(text).toContain('has been established over centuries of experience');
    // gt/*.txt lists table cells column by column, OCR reads them row by row (as gt/*.layout.txt does):
    // measured 0.13 against the first, 0.013 against the second; the bounds leave room for other builds.
    expect(cer(text, gt)).toBeLessThan(0.2);
    expect(cer(text, readFileSync(path.join(scannedDir, 'gt/scan02-booktabs-p2.layout.txt'), 'utf8'))).toBeLessThan(
      0.03,
    );
    expect(orderFreeCer(text, gt)).toBeLessThan(0.06);
    const tables = r.blocks.filter((b) => b.type === 'table');
    expect(tables.length).toBeGreaterThanOrEqual(2);
    expect(tables.some((t) => t.table?.rows.some((row) => row.includes('Armadillo')))).toBe(true);
  });

  it('reads the beamer slide, including the light-on-dark title bar', async () => {
    const data = new Uint8Array(readFileSync(path.join(scannedDir, 'scan05-beamer-slide4.pdf')));
    const gt = readFileSync(path.join(scannedDir, 'gt/scan05-beamer-slide4.txt'), 'utf8');
    const r = await ocrPdfPage(data, 1);
    expectWellFormed(r);
    const text = blocksText(r.blocks);
    expect(text).toContain('General formalization of haplotyping');
    // The navigation bar in its order across the top (tesseract lists it right to left), without the
    // navigation dots read as "0000": measured 0.046.
    expect(text.indexOf('Introduction')).toBeLessThan(text.indexOf('Summary'));
    expect(text).not.toMatch(/000/);
    expect(cer(text, gt)).toBeLessThan(0.05);
    expect(orderFreeCer(text, gt)).toBeLessThan(0.04);
    expect(r.blocks.filter((b) => b.type === 'list_item').map((b) => b.text)).toContain('A haplotype matrix H.');
  });
});

describe('OCR of scans made from a generated PDF', () => {
  let upright: Scan;
  let turned90: Scan;
  let turned180: Scan;
  let turned270: Scan;

  beforeAll(async () => {
    const pdf = await makeStructuredPdf();
    // 200 dpi like the fixtures; grey noise (sigma 18), 0.2% specks and a 1.5 degree skew.
    upright = await makeScan(pdf, 1, { dpi: 200, noise: 18, specks: 0.002, skewDeg: 1.5, seed: 7 });
    turned90 = await makeScan(pdf, 1, { dpi: 200, noise: 12, turn: 90, skewDeg: -0.7, seed: 8 });
    turned180 = await makeScan(pdf, 1, { dpi: 200, noise: 12, turn: 180, seed: 9 });
    turned270 = await makeScan(pdf, 1, { dpi: 200, noise: 12, turn: 270, skewDeg: 0.5, seed: 10 });
  });

  it('reads a noisy skewed page of an image-only PDF with its blocks typed', async () => {
    const r = await ocrPdfPage(await scansToPdf([upright]), 1, { dpi: 200 });
    expectWellFormed(r);
    expect(r.dpi).toBe(200);
    expect(r.page.ocr.rotation).toBe(0);
    // Measured 0.0% to 0.6% per paragraph on this scan.
    expect(worstParagraphCer(r.blocks)).toBeLessThan(0.03);
    expect(headingTexts(r.blocks)).toEqual(expect.arrayContaining(['Lectern Structured Sample', 'Introduction']));
    const title = r.blocks.find((b) => b.text === 'Lectern Structured Sample');
    expect(title?.heading_level).toBe(1);
    expect(r.blocks.filter((b) => b.type === 'list_item').map((b) => b.text)).toEqual(
      expect.arrayContaining(['item one', 'item two', 'item three']),
    );
    // The title sits in the upper eighth of the A4 page, where pdfkit put it.
    expect(title?.bbox?.y0).toBeLessThan(842 / 8);
    for (const b of r.blocks) expect(b.confidence).toBeGreaterThan(30);
  });

  it('reads a page turned by 90 degrees upright and maps boxes back to the page as stored', async () => {
    const r = await ocrImage(turned90.png, { dpi: 200 });
    expectWellFormed(r);
    expect(r.page.ocr.rotation).toBe(270);
    expect(r.page.width).toBeCloseTo(842, -1);
    expect(worstParagraphCer(r.blocks)).toBeLessThan(0.03);
    expect(headingTexts(r.blocks)).toContain('Lectern Structured Sample');
    // Turned clockwise, the page's top edge is on the right: the title block hugs the right side.
    const title = r.blocks.find((b) => b.text === 'Lectern Structured Sample');
    expect(title?.bbox?.x0).toBeGreaterThan(r.page.width * 0.8);
  });

  it('reads an upside-down page of a multi-page TIFF', async () => {
    const tiff = greyTiff([
      { ...upright, data: await scanGrey(upright) },
      { ...turned180, data: await scanGrey(turned180) },
    ]);
    expect(imagePageCount(tiff)).toBe(2);
    const r = await ocrImage(tiff, { dpi: 200, index: 1 });
    expectWellFormed(r);
    expect(r.page.page).toBe(2);
    expect(r.page.ocr.rotation).toBe(180);
    expect(worstParagraphCer(r.blocks)).toBeLessThan(0.03);
    // Read here as "Sampie" (upside-down noise lands differently): the heading is what is checked.
    expect(headingTexts(r.blocks).some((t) => t.startsWith('Lectern Structured Sam'))).toBe(true);
  });

  it('reads an image-only PDF page turned by 270 degrees upright', async () => {
    const r = await ocrPdfPage(await scansToPdf([turned270]), 1, { dpi: 200 });
    expectWellFormed(r);
    expect(r.page.ocr.rotation).toBe(90);
    expect(worstParagraphCer(r.blocks)).toBeLessThan(0.03);
    // Turned counter-clockwise, the page's top edge is on the left: the title block hugs the left side.
    const title = r.blocks.find((b) => b.text === 'Lectern Structured Sample');
    expect(title?.type).toBe('heading');
    expect(title?.bbox?.x1).toBeLessThan(r.page.width * 0.2);
  });

  it('reads JPEG and WebP scans, and refuses a broken image with OCR_IMAGE_INVALID instead of crashing', async () => {
    const img = await loadImage(upright.png);
    const canvas = createCanvas(img.width, img.height);
    canvas.getContext('2d').drawImage(img, 0, 0);
    for (const format of ['jpeg', 'webp'] as const) {
      const r = await ocrImage(canvas.encodeSync(format as 'jpeg', 90), { dpi: 200 });
      expectWellFormed(r);
      expect(worstParagraphCer(r.blocks), format).toBeLessThan(0.03);
    }
    for (const broken of [upright.png.subarray(0, 64), upright.png.subarray(0, upright.png.length >> 1)]) {
      await expect(ocrImage(broken, { dpi: 200 })).rejects.toMatchObject({ code: 'OCR_IMAGE_INVALID' });
    }
  });

  it('OCRs only a region of the page when given one', async () => {
    // The title line of the generated page (pdfkit drew it near y = 72 pt); the region excludes the body.
    const r = await ocrPdfPage(await scansToPdf([upright]), 1, {
      dpi: 200,
      bbox: { x0: 40, y0: 60, x1: 560, y1: 115 },
    });
    const text = blocksText(r.blocks);
    expect(text).toContain('Lectern Structured Sample');
    expect(text).not.toContain('exercises');
    for (const b of r.blocks) {
      expect(b.bbox?.y0).toBeGreaterThanOrEqual(60);
      expect(b.bbox?.y1).toBeLessThanOrEqual(115);
    }
  });
});

describe('OCR engine', () => {
  it('starts one engine per language per thread and reuses it for every later page', async () => {
    const [a, b] = await Promise.all([getOcrEngine('eng'), getOcrEngine()]);
    expect(b).toBe(a);
    expect(await getOcrEngine('eng')).toBe(a);
    expect(a.lang).toBe('eng');
  });
});

describe('blank pages', () => {
  const a4 = (ink: (ctx: ReturnType<ReturnType<typeof createCanvas>['getContext']>) => void) => {
    const canvas = createCanvas(2480, 3508);
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 2480, 3508);
    ink(ctx);
    const rgba = ctx.getImageData(0, 0, 2480, 3508).data;
    const data = new Uint8Array(2480 * 3508);
    for (let i = 0; i < data.length; i++) data[i] = rgba[i * 4] ?? 255;
    return { width: 2480, height: 3508, data };
  };

  it('reads a page without ink as no blocks without starting an engine, and still reads a page with one word', async () => {
    const noEngine = () => Promise.reject(new Error('an engine was started for a blank page'));
    const specks = a4((ctx) => {
      ctx.fillStyle = '#000';
      for (let i = 0; i < 6; i++) ctx.fillRect(300 + i * 200, 500, 1, 1);
    });
    expect(await recognizeUpright(noEngine, specks, { dpi: 300 })).toMatchObject({
      blocks: [],
      confidence: 0,
      turn: 0,
    });
    // A fully dark page is inverted first (light on dark), so it is blank too.
    expect(isBlank(normalisePolarity(a4((ctx) => ctx.fillRect(0, 0, 2480, 3508))))).toBe(true);
    const word = a4((ctx) => {
      ctx.fillStyle = '#000';
      ctx.font = '40px sans-serif';
      ctx.fillText('Notes', 300, 500);
    });
    expect(isBlank(word)).toBe(false);
    const read = await recognizeUpright(() => getOcrEngine('eng'), word, { dpi: 300, detectRotation: false });
    expect(read.blocks.length).toBeGreaterThan(0);
  });
  it('renders a page without ink only as a thumbnail, and a page with one small dot in full', async () => {
    const blank = await openPdf(new Uint8Array(await makeBlankPagePdf()));
    const dot = await openPdf(new Uint8Array(await onePagePdf((doc) => doc.rect(300, 400, 0.5, 0.5).fill('#000'))));
    try {
      expect(await renderOpenPdfPageGrey(blank.doc, 2, { dpi: 300 })).toMatchObject({
        grey: null,
        width: 2480,
        height: 3508,
        dpi: 300,
      });
      const inked = await renderOpenPdfPageGrey(dot.doc, 1, { dpi: 300 });
      expect(inked.grey?.data.some((v) => v < 128)).toBe(true);
      const read = await ocrPdfPage(await makeBlankPagePdf(), 2);
      expect(read).toMatchObject({ blocks: [], dpi: 300, page: { page: 2, ocr: { confidence: 0, rotation: 0 } } });
    } finally {
      await Promise.all([blank.doc.destroy(), dot.doc.destroy()]);
    }
  });
});

describe('OCR languages', () => {
  it('lists English as installed', () => {
    expect(installedLanguages()).toContain('eng');
  });

  it('fails with OCR_LANGUAGE_MISSING, naming the installed languages, for data that is not installed', async () => {
    const err = await ocrImage(new Uint8Array([1, 2, 3]), { lang: 'fra' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OCR_LANGUAGE_MISSING' });
    expect((err as Error).message).toMatch(/'fra'.*installed: eng/);
  });
});

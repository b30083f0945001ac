/**
 * Lectern's pdf.js (patches/pdfjs-dist+*.patch) reads an embedded Type 1 or CFF font only as far as its text
 * needs, and builds the font fully the first time a page using it is drawn. Extraction reads text and draws the
 * pages that need OCR on one document, so a page drawn after its fonts were read for text must look exactly as
 * on a document that only draws, show its text, and leave the text read afterwards as it was. The fixture papers
 * are TeX output: tugboat's fonts are Type 1 programs, zoo's are CFF (Type1C).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { openPdf, type PdfDocument } from '../../server/core/extract/pdf/pdfjs-loader.js';
import type { GreyRaster } from '../../server/core/ocr/raster.js';
import { renderOpenPdfPageGrey } from '../../server/core/ocr/render-page.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(path.resolve(repoRoot, '../shared/fixtures/pdfs', name)));

const PAGES = [1, 2];
const DPI = 72;

interface Item {
  str: string;
  transform: number[];
  width: number;
}

async function pageItems(doc: PdfDocument, n: number): Promise<Item[]> {
  const page = await doc.getPage(n);
  try {
    const content = await page.getTextContent();
    return content.items.flatMap((i) => ('str' in i ? [{ str: i.str, transform: i.transform, width: i.width }] : []));
  } finally {
    page.cleanup();
  }
}

async function draw(doc: PdfDocument, n: number): Promise<GreyRaster> {
  const { grey } = await renderOpenPdfPageGrey(doc, n, { dpi: DPI });
  if (!grey) throw new Error(`page ${n} drew no ink`);
  return grey;
}

/** Share of the page's words (items of 3+ letters, upright) whose box on the drawing holds a dark pixel. */
async function inkedShare(doc: PdfDocument, n: number, items: Item[], grey: GreyRaster): Promise<number> {
  const page = await doc.getPage(n);
  const vp = page.getViewport({ scale: DPI / 72 });
  page.cleanup();
  const words = items.filter((i) => i.str.trim().length >= 3 && i.transform[1] === 0 && (i.transform[0] ?? 0) > 0);
  let inked = 0;
  for (const w of words) {
    const [, , , d = 0, e = 0, f = 0] = w.transform;
    const [x0, y0] = vp.convertToViewportPoint(e, f + d);
    const [x1, y1] = vp.convertToViewportPoint(e + w.width, f);
    let dark = false;
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(grey.height, Math.ceil(y1)) && !dark; y++) {
      for (let x = Math.max(0, Math.floor(x0)); x < Math.min(grey.width, Math.ceil(x1)) && !dark; x++) {
        if ((grey.data[y * grey.width + x] ?? 255) < 128) dark = true;
      }
    }
    if (dark) inked++;
  }
  expect(words.length).toBeGreaterThan(20);
  return inked / words.length;
}

describe.each(['tugboat-babelbib.pdf', 'zoo-jss-paper.pdf'])('%s: fonts read for text, then drawn', (name) => {
  it('draws every page as a document that only draws, shows its words, and reads the same text after', async () => {
    const data = fixture(name);
    const reader = await openPdf(data);
    const drawer = await openPdf(data);
    try {
      const before = [];
      for (const n of PAGES) before.push(await pageItems(reader.doc, n));
      for (const [i, n] of PAGES.entries()) {
        const afterText = await draw(reader.doc, n);
        const only = await draw(drawer.doc, n);
        expect([afterText.width, afterText.height]).toEqual([only.width, only.height]);
        expect(Buffer.compare(Buffer.from(afterText.data), Buffer.from(only.data))).toBe(0);
        // Drawn without its glyphs, a page of text would show only its rules and figures.
        expect(await inkedShare(reader.doc, n, before[i] ?? [], afterText)).toBeGreaterThan(0.95);
      }
      for (const [i, n] of PAGES.entries()) expect(await pageItems(reader.doc, n)).toEqual(before[i]);
    } finally {
      await Promise.all([reader.doc.destroy(), drawer.doc.destroy()]);
    }
  });
});

/**
 * PDF extraction (server/core/extract/pdf) on the real fixture PDFs of ../shared/fixtures and on
 * small PDFs generated here with pdfkit, whose content is known exactly.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { BufferedDecompressionStream } from '../../server/core/extract/pdf/buffered-decompression.js';
import {
  assemblePdf,
  extractPdf,
  readPdfPages,
  readPdfShare,
  SHARE_MIN_PAGES,
  SHARE_RUN_PAGES,
  type PdfPages,
} from '../../server/core/extract/pdf/index.js';
import { FontRegistry } from '../../server/core/extract/pdf/fonts.js';
import { readPageText } from '../../server/core/extract/pdf/page-text.js';
import { loadPdfJs, openPdf } from '../../server/core/extract/pdf/pdfjs-loader.js';
import { warmUpPdf } from '../../server/core/extract/pdf/warm-up-pdf.js';
import { joinLines, normalizeText } from '../../server/core/extract/pdf/text-normalize.js';
import { BLOCK_TYPES, type ExtractedBlock, type ExtractionResult } from '../../server/core/extract/types.js';
import { makeLongPdf, makeStructuredPdf, STRUCTURED_PDF } from '../helpers/make-pdf.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const fixturesDir = path.resolve(repoRoot, '../shared/fixtures');

interface FixtureDoc {
  id: string;
  file: string;
  pages: number;
  title: string | null;
}
const manifest = JSON.parse(readFileSync(path.join(fixturesDir, 'manifest.json'), 'utf8')) as {
  documents: FixtureDoc[];
};
const fixtures = manifest.documents.filter((d) => d.file.startsWith('pdfs/'));

interface Run {
  result: ExtractionResult;
  progress: Array<[number, number]>;
}

/** Each fixture is extracted once and shared by the tests that look at it. */
const runs = new Map<string, Promise<Run>>();
function extractFixture(id: string): Promise<Run> {
  let run = runs.get(id);
  if (!run) {
    const doc = fixtures.find((d) => d.id === id);
    if (!doc) throw new Error(`no fixture ${id}`);
    const progress: Array<[number, number]> = [];
    const data = new Uint8Array(readFileSync(path.join(fixturesDir, doc.file)));
    run = extractPdf(data, { onProgress: (done, total) => progress.push([done, total]) }).then((result) => ({
      result,
      progress,
    }));
    runs.set(id, run);
  }
  return run;
}

const ofType = (r: ExtractionResult, type: ExtractedBlock['type']): ExtractedBlock[] =>
  r.blocks.filter((b) => b.type === type);
const indexOf = (r: ExtractionResult, needle: string, page?: number): number =>
  r.blocks.findIndex((b) => b.text.includes(needle) && (page === undefined || b.page === page));

function makePdf(
  build: (doc: PDFKit.PDFDocument) => void,
  options: PDFKit.PDFDocumentOptions = {},
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 0, autoFirstPage: false, ...options });
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(parts))));
    doc.on('error', reject);
    build(doc);
    doc.end();
  });
}

function put(doc: PDFKit.PDFDocument, font: string, size: number, text: string, x: number, y: number): void {
  doc.font(font).fontSize(size).text(text, x, y, { lineBreak: false });
}

async function expectRejection(data: Uint8Array, code: string): Promise<Error> {
  const err = await extractPdf(data).then(
    () => null,
    (e: unknown) => e as Error & { code?: string },
  );
  expect(err, 'extraction should reject').toBeInstanceOf(Error);
  expect((err as Error & { code?: string }).code).toBe(code);
  expect((err as Error).message.length).toBeGreaterThan(10);
  return err as Error;
}

describe('extractPdf on the fixture PDFs: invariants', () => {
  it.each(fixtures.map((d) => [d.id, d] as const))('%s', async (_id, doc) => {
    const { result, progress } = await extractFixture(doc.id);
    expect(result.format).toBe('pdf');
    expect(result.total_pages).toBe(doc.pages);
    expect(result.pages.map((p) => p.page)).toEqual(Array.from({ length: doc.pages }, (_, i) => i + 1));
    expect(progress).toEqual(Array.from({ length: doc.pages }, (_, i) => [i + 1, doc.pages]));
    if (doc.title) expect(result.title).toBe(doc.title);

    const headings = ofType(result, 'heading');
    expect(headings.length).toBeGreaterThan(0);
    for (const b of result.blocks) {
      expect(BLOCK_TYPES).toContain(b.type);
      const page = result.pages[b.page - 1];
      expect(page, `page ${b.page}`).toBeDefined();
      expect(page?.needs_ocr).toBe(false);
      const box = b.bbox;
      expect(box).not.toBeNull();
      if (!box || !page) continue;
      expect(box.x0).toBeGreaterThanOrEqual(-1);
      expect(box.y0).toBeGreaterThanOrEqual(-1);
      expect(box.x1).toBeLessThanOrEqual(page.width + 1);
      expect(box.y1).toBeLessThanOrEqual(page.height + 1);
      expect(box.x1).toBeGreaterThan(box.x0);
      expect(box.y1).toBeGreaterThan(box.y0);
      expect(b.text.trim().length).toBeGreaterThan(0);
      // Raw control codes and unexpanded ligatures never reach the text.
      expect(b.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\ufb00-\ufb06\u00a0\u200b]/);
      if (b.type === 'heading') expect(b.heading_level).toBeGreaterThanOrEqual(1);
      if (b.type === 'heading') expect(b.heading_level).toBeLessThanOrEqual(6);
      else expect(b.heading_level).toBeUndefined();
      if (b.type === 'table') {
        const rows = b.table?.rows ?? [];
        expect(rows.length).toBeGreaterThanOrEqual(2);
        expect(new Set(rows.map((r) => r.length)).size).toBe(1);
        const lines = b.text.split('\n');
        expect(lines[1]).toBe(`| ${rows[0]!.map(() => '---').join(' | ')} |`);
        // One head line (several head rows merge into it, none leaves it empty), the rule, the body.
        expect(lines.length).toBe(rows.length - (b.table?.header_rows ?? 0) + 2);
      }
    }
    // Every page with a text layer yields blocks; pages flagged for OCR yield none.
    const withBlocks = new Set(result.blocks.map((b) => b.page));
    for (const p of result.pages) expect(withBlocks.has(p.page), `page ${p.page}`).toBe(!p.needs_ocr);
  });
});

describe('extractPdf on the fixture PDFs: content', () => {
  it('booktabs-manual: typeset tables come out as one table block each, rectangular, with Markdown text', async () => {
    const { result } = await extractFixture('booktabs-manual');
    const tables = ofType(result, 'table');
    expect(tables.filter((t) => t.page === 2)).toHaveLength(3);
    const tableau = tables.find((t) => t.table?.rows.some((r) => r.join('|') === 'gnats|gram|$13.65'));
    expect(tableau?.table?.rows).toContainEqual(['armadillo', 'frozen', '8.99']);
    expect(tableau?.table?.rows).toContainEqual(['', 'each', '.01']);

    const formal = tables.find((t) => t.page === 2 && t.table?.rows.some((r) => r.includes('Gnat')));
    const grid = formal?.table;
    expect(grid).toBeDefined();
    if (!grid || !formal) return;
    expect(grid.rows.every((r) => r.length === 3)).toBe(true);
    expect(grid.rows).toContainEqual(['Gnat', 'per gram', '13.65']);
    expect(grid.rows).toContainEqual(['', 'each', '0.01']);
    expect(grid.rows).toContainEqual(['Armadillo', 'frozen', '8.99']);
    expect(grid.header_rows).toBeGreaterThanOrEqual(1);
    expect(grid.rows.slice(0, grid.header_rows).flat()).toContain('Price ($)');
    const md = formal.text.split('\n');
    expect(md[0]).toMatch(/^\| .*Animal.* \| .*Description.* \| Price \(\$\) \|$/);
    expect(md[1]).toBe('| --- | --- | --- |');
    expect(md).toContain('| Gnat | per gram | 13.65 |');
    expect(md).toContain('| | each | 0.01 |');
    expect(md.at(-1)).toBe('| Armadillo | frozen | 8.99 |');
  });

  it('booktabs-manual: page numbers are footers, listings are code, hyphenation is joined', async () => {
    const { result } = await extractFixture('booktabs-manual');
    const footers = ofType(result, 'footer');
    expect(new Set(footers.filter((f) => /^\d+$/.test(f.text)).map((f) => f.page)).size).toBeGreaterThanOrEqual(16);
    expect(ofType(result, 'code').some((b) => b.text.includes('\\newdimen\\heavyrulewidth'))).toBe(true);
    const all = result.blocks.map((b) => b.text).join('\n');
    // "pre-" at a line end, "sented" on the next line.
    expect(all).toContain('reasonably clearly presented as is');
    expect(all).not.toContain('pre- sented');
    expect(result.blocks.find((b) => b.text === '1 Introduction')?.type).toBe('heading');
  });

  it('zoo-jss-paper: R code, running heads on both page parities, figures with captions', async () => {
    const { result } = await extractFixture('zoo-jss-paper');
    expect(ofType(result, 'code').some((b) => b.text.includes('R> library("zoo")'))).toBe(true);
    const headers = ofType(result, 'header');
    expect(headers.filter((h) => h.text.includes('zoo: An S3 Class and Methods')).length).toBeGreaterThanOrEqual(10);
    expect(headers.filter((h) => h.text.includes('Achim Zeileis, Gabor Grothendieck')).length).toBeGreaterThanOrEqual(
      10,
    );
    const intro = result.blocks.find((b) => b.text === '1. Introduction');
    const sub = result.blocks.find((b) => b.text === '2.1. Creation of "zoo" objects');
    expect(intro?.type).toBe('heading');
    expect(sub?.type).toBe('heading');
    expect(intro!.heading_level!).toBeLessThan(sub!.heading_level!);
    const captions = ofType(result, 'caption');
    expect(captions.map((c) => c.text)).toContain('Figure 2: Examples of multiple panel plots');
    const figures = ofType(result, 'figure');
    expect(figures.some((f) => f.page === 10)).toBe(true);
    // A figure comes before its caption below it.
    expect(indexOf(result, 'Figure 2: Examples', 10)).toBeGreaterThan(
      result.blocks.findIndex((b) => b.type === 'figure' && b.page === 10),
    );
  });

  it('tugboat-babelbib: two columns are read column by column', async () => {
    const { result } = await extractFixture('tugboat-babelbib');
    const leftLast = indexOf(result, 'this can be done is described in section 4', 1);
    const rightFirst = indexOf(result, 'current version only runs with', 1);
    expect(leftLast).toBeGreaterThanOrEqual(0);
    expect(rightFirst).toBeGreaterThan(leftLast);
    expect(indexOf(result, '2.1 Available packages', 1)).toBeLessThan(indexOf(result, '2.2 Different approaches', 1));
    // No line mixes the two columns.
    expect(result.blocks.some((b) => b.text.includes('When generating') && b.text.includes('current version'))).toBe(
      false,
    );
    expect(result.blocks[0]?.type).toBe('header');
    expect(ofType(result, 'header').filter((h) => h.text.includes('TUGboat, Volume 0 (2060)')).length).toBe(10);
    expect(
      ofType(result, 'footer').filter((h) => h.text.startsWith('preliminary draft')).length,
    ).toBeGreaterThanOrEqual(10);
    const table1 = ofType(result, 'table').find((t) => t.page === 3);
    expect(table1?.table?.rows).toContainEqual(['ISBN', 'ISBN', '\\MakeUppercase', '\\MakeUppercase']);
    expect(ofType(result, 'list_item').some((b) => b.text.startsWith('[1] Beitz, W.'))).toBe(true);
  });

  it('amsmath-userguide: display math, a blank page for OCR, running heads found by their page numbers', async () => {
    const { result } = await extractFixture('amsmath-userguide');
    expect(result.pages.filter((p) => p.needs_ocr).map((p) => p.page)).toEqual([4]);
    expect(result.warnings.join(' ')).toMatch(/OCR/);
    expect(ofType(result, 'equation').length).toBeGreaterThanOrEqual(20);
    const headers = ofType(result, 'header').map((h) => h.text);
    expect(headers).toContain('3.3. SPLIT EQUATIONS WITHOUT ALIGNMENT 5');
    expect(headers.filter((h) => h.includes('DISPLAYED EQUATIONS')).length).toBeGreaterThanOrEqual(3);
    expect(ofType(result, 'list_item').length).toBeGreaterThanOrEqual(7);
    const operators = ofType(result, 'table').find((t) => t.table?.rows.some((r) => r.includes('\\arcsin')));
    const row = operators?.table?.rows.find((r) => r.includes('\\arcsin')) ?? [];
    expect(row[row.indexOf('\\arcsin') + 1]).toBe('arcsin');
    expect(result.blocks.find((b) => b.text === '3.3 Split equations without alignment')?.heading_level).toBe(
      result.blocks.find((b) => b.text === '3.1 Introduction')?.heading_level,
    );
  });

  it('survival-tiedtimes: T1-encoded ligatures of a Type 3 font are restored, monospace found by glyph widths', async () => {
    const { result } = await extractFixture('survival-tiedtimes');
    expect(result.title).toBe('Roundoff error and Tied Times');
    const all = result.blocks.map((b) => b.text).join('\n');
    expect(all).toContain('Each interval has a different start and end date');
    expect(all).toContain('victim of floating point precision');
    expect(all).toContain('coxph and survfit routines');
    expect(ofType(result, 'code').some((b) => b.text.startsWith('> birth <- as.Date("1973/03/10")'))).toBe(true);
    expect(ofType(result, 'footer').map((f) => f.text)).toEqual(['1', '2']);
  });

  it('beamer-conference-talk: the navigation bar is a header on every slide, slide titles are headings', async () => {
    const { result } = await extractFixture('beamer-conference-talk');
    const nav = ofType(result, 'header').filter((h) => h.text.startsWith('Introduction Bad News: Hardness Results'));
    expect(nav.length).toBeGreaterThanOrEqual(25);
    expect(result.blocks.find((b) => b.text === 'What is haplotyping and why is it important?')?.type).toBe('heading');
    expect(ofType(result, 'heading')[0]?.text).toBe(result.title);
  });
});

describe('extractPdf on generated PDFs', () => {
  it('types the blocks of a small report and marks its empty page for OCR', async () => {
    const pdf = await makePdf((doc) => {
      doc.addPage();
      put(doc, 'Helvetica-Bold', 20, 'Synthetic Report', 72, 72);
      let y = 110;
      const body = (text: string, x = 72, font = 'Helvetica'): void => {
        put(doc, font, 10, text, x, y);
        y += 12;
      };
      body('This paragraph talks about the docu-');
      body('ment model and about the Anglo-');
      body('Saxon manuscripts. It has three lines.');
      y += 14;
      put(doc, 'Helvetica-Bold', 14, 'Methods', 72, y);
      y += 22;
      body('The list below has items:');
      body('\u2022  first item of the list', 84);
      body('\u2013  a nested item under it', 108);
      body('\u2022  second item of the list', 84);
      y += 10;
      for (const row of [
        ['Name', 'Count', 'Price'],
        ['Apple', '3', '1.20'],
        ['Banana', '12', '0.50'],
        ['Cherry', '7', '3.75'],
      ]) {
        row.forEach((cell, c) => put(doc, 'Helvetica', 10, cell, [120, 220, 300][c] ?? 72, y));
        y += 13;
      }
      y += 6;
      body('Table 1: Fruit prices in the report.');
      y += 14;
      body('for (let i = 0; i < 3; i++) {', 90, 'Courier');
      body('  console.log(i);', 90, 'Courier');
      body('}', 90, 'Courier');
      y += 14;
      body('Final words of the report.');
      put(doc, 'Helvetica', 9, 'Page 1', 280, 780);
      doc.addPage();
      doc.addPage();
      put(
        doc,
        'Helvetica',
        10,
        'The third page has a sentence of text on it, which is enough for a text layer.',
        72,
        72,
      );
      put(doc, 'Helvetica', 9, 'Page 3', 280, 780);
    });
    const progress: number[] = [];
    const r = await extractPdf(pdf, { onProgress: (done) => progress.push(done) });
    expect(progress).toEqual([1, 2, 3]);
    expect(r.pages.map((p) => p.needs_ocr)).toEqual([false, true, false]);
    expect(r.pages[0]).toMatchObject({ width: 595.28, height: 841.89 });
    expect(r.blocks.some((b) => b.page === 2)).toBe(false);
    expect(r.title).toBe('Synthetic Report');

    const simple = r.blocks.map((b) => [b.type, b.text, b.heading_level ?? b.indent_level ?? null]);
    expect(simple).toEqual([
      ['heading', 'Synthetic Report', 1],
      [
        'paragraph',
        'This paragraph talks about the document model and about the Anglo-Saxon manuscripts. It has three lines.',
        null,
      ],
      ['heading', 'Methods', 2],
      ['paragraph', 'The list below has items:', null],
      ['list_item', 'first item of the list', 0],
      ['list_item', 'a nested item under it', 1],
      ['list_item', 'second item of the list', 0],
      [
        'table',
        '| Name | Count | Price |\n| --- | --- | --- |\n| Apple | 3 | 1.20 |\n| Banana | 12 | 0.50 |\n| Cherry | 7 | 3.75 |',
        null,
      ],
      ['caption', 'Table 1: Fruit prices in the report.', null],
      ['code', 'for (let i = 0; i < 3; i++) {\n  console.log(i);\n}', null],
      ['paragraph', 'Final words of the report.', null],
      ['footer', 'Page 1', null],
      ['paragraph', 'The third page has a sentence of text on it, which is enough for a text layer.', null],
      ['footer', 'Page 3', null],
    ]);
    const table = r.blocks.find((b) => b.type === 'table');
    expect(table?.table).toEqual({
      rows: [
        ['Name', 'Count', 'Price'],
        ['Apple', '3', '1.20'],
        ['Banana', '12', '0.50'],
        ['Cherry', '7', '3.75'],
      ],
      header_rows: 1,
    });
    // Boxes in points from the top-left corner: the title sits at y = 72 on an A4 page.
    const title = r.blocks[0]?.bbox;
    expect(title?.x0).toBeCloseTo(72, 0);
    expect(title!.y0).toBeGreaterThan(68);
    expect(title!.y1).toBeLessThan(100);
  });

  it('reads the two-column page of the structured sample column by column', async () => {
    const r = await extractPdf(new Uint8Array(await makeStructuredPdf()));
    const { columns } = STRUCTURED_PDF;
    const at = (s: string): number => indexOf(r, s, columns.page);
    expect(at(columns.leftStart)).toBeGreaterThanOrEqual(0);
    expect(at(columns.leftStart)).toBeLessThan(at(columns.leftEnd) + 1);
    expect(at(columns.leftEnd)).toBeLessThan(at(columns.rightStart));
    expect(at(columns.rightStart)).toBeLessThanOrEqual(at(columns.rightEnd));
    for (const h of STRUCTURED_PDF.headings) {
      expect(r.blocks.find((b) => b.text === h.text && b.page === h.page)?.heading_level, h.text).toBe(h.level);
    }
    expect(r.blocks.map((b) => b.text).join(' ')).toContain(STRUCTURED_PDF.hyphenation.word);
    expect(r.blocks.find((b) => b.type === 'code')?.text).toBe(STRUCTURED_PDF.code.lines.join('\n'));
    expect(r.blocks.find((b) => b.type === 'table')?.table).toEqual({
      rows: STRUCTURED_PDF.table.rows.map((row) => [...row]),
      header_rows: STRUCTURED_PDF.table.headerRows,
    });
    expect(r.blocks.filter((b) => b.type === 'header').map((b) => b.text)).toEqual([
      STRUCTURED_PDF.header,
      STRUCTURED_PDF.header,
      STRUCTURED_PDF.header,
    ]);
    expect(r.blocks.filter((b) => b.type === 'footer').map((b) => b.text)).toEqual([...STRUCTURED_PDF.footers]);
  });

  it('lays out a page whose text runs sideways in its own frame, with boxes on the page as displayed', async () => {
    for (const angle of [-90, 90]) {
      const pdf = await makePdf((doc) => {
        doc.addPage();
        doc.save();
        doc.rotate(angle, { origin: [297.64, 420.945] });
        put(doc, 'Helvetica-Bold', 16, 'Sideways Heading', 150, 300);
        put(doc, 'Helvetica', 10, 'The first line of a paragraph that runs along the long', 150, 330);
        put(doc, 'Helvetica', 10, 'edge of the page, and its second line right below it.', 150, 342);
        doc.restore();
      });
      const r = await extractPdf(pdf);
      expect(r.blocks.map((b) => [b.type, b.text])).toEqual([
        ['heading', 'Sideways Heading'],
        [
          'paragraph',
          'The first line of a paragraph that runs along the long edge of the page, and its second line right below it.',
        ],
      ]);
      for (const b of r.blocks) {
        const box = b.bbox!;
        expect(box.y1 - box.y0, `${angle}`).toBeGreaterThan(3 * (box.x1 - box.x0));
        expect(box.x0).toBeGreaterThanOrEqual(0);
        expect(box.y1).toBeLessThanOrEqual(841.89);
      }
    }
  });

  it('rejects a non-PDF, an empty file, a damaged PDF and a truncated PDF with PDF_INVALID', async () => {
    await expectRejection(new TextEncoder().encode('Hello, I am a plain text file and no PDF at all.'), 'PDF_INVALID');
    await expectRejection(new Uint8Array(0), 'PDF_INVALID');
    await expectRejection(
      new TextEncoder().encode('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ngarbage\n%%EOF'),
      'PDF_INVALID',
    );
    const real = readFileSync(path.join(fixturesDir, 'pdfs/booktabs-manual.pdf'));
    await expectRejection(new Uint8Array(real.subarray(0, 4096)), 'PDF_INVALID');
  });

  it('rejects a password-protected PDF with PDF_ENCRYPTED', async () => {
    const pdf = await makePdf(
      (doc) => {
        doc.addPage();
        put(doc, 'Helvetica', 12, 'Secret text behind a password.', 72, 72);
      },
      { userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' },
    );
    const err = await expectRejection(pdf, 'PDF_ENCRYPTED');
    expect(err.message).toMatch(/password/i);
  });

  it('shares a long PDF between two readers in runs of pages taken as they come free, to the blocks one reader makes', async () => {
    const pages = SHARE_MIN_PAGES + 10;
    const pdf = new Uint8Array(await makeLongPdf(pages));
    const alone = await extractPdf(pdf);
    // Both readers in this thread, each taking runs from the one counter whenever it comes back to it.
    const nextRun = new Int32Array(new SharedArrayBuffer(4));
    const progress: number[][] = [[], []];
    const parts = await Promise.all(
      [0, 1].map((i) =>
        readPdfShare(pdf, i, 2, nextRun, { onProgress: (done, total) => progress[i]!.push(done, total) }),
      ),
    );
    const runs = Math.ceil(pages / SHARE_RUN_PAGES);
    // Every run taken once, then one look each at the empty counter.
    expect(nextRun[0]).toBe(runs + 2);
    const pagesOf = parts.map((p) => p!.layouts.map((l) => l.page));
    expect(pagesOf.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
    expect(progress.map((p) => p.length / 2)).toEqual(pagesOf.map((ps) => ps.length));
    expect(progress.every((p) => p.every((v, k) => k % 2 === 0 || v === pages))).toBe(true);
    expect(assemblePdf(parts.map((p) => p!))).toEqual(alone);
    // How the runs fall between the readers depends on timing; any split gives the same: here every other run
    // to each of two readers, handed over last reader first.
    const split: PdfPages[] = [
      { total: pages, layouts: [], warnings: [], failed: 0 },
      { total: pages, layouts: [], warnings: [], failed: 0 },
    ];
    for (let run = 0; run * SHARE_RUN_PAGES < pages; run++) {
      const read = await readPdfPages(pdf, {
        from: run * SHARE_RUN_PAGES + 1,
        to: Math.min(pages, (run + 1) * SHARE_RUN_PAGES),
      });
      split[run % 2]!.layouts.push(...read.layouts);
      if (read.title) split[run % 2]!.title = read.title;
    }
    expect(assemblePdf(split.reverse())).toEqual(alone);
  });

  it("leaves the caller's buffer intact", async () => {
    const pdf = await makePdf((doc) => {
      doc.addPage();
      put(doc, 'Helvetica', 12, 'A page with a single line of text that is long enough.', 72, 72);
    });
    const copy = pdf.slice();
    await extractPdf(pdf);
    expect(pdf.byteLength).toBe(copy.byteLength);
    expect(Buffer.from(pdf).equals(Buffer.from(copy))).toBe(true);
  });
});

describe('text clean-up', () => {
  it('expands ligatures, normalises odd spaces and maps T1 control codes', () => {
    expect(normalizeText('\uFB01nd the \uFB02ow, e\uFB00ort, o\uFB03ce, ba\uFB04e, \uFB06ar', true)).toBe(
      'find the flow, effort, office, baffle, star',
    );
    expect(normalizeText('a\u00A0b\u2009c\u200Bd\uFEFFe', true)).toBe('a b cde');
    expect(normalizeText('di\u001Berent \u001Doating \u0010quoted\u0011 2\u00153', true)).toBe(
      'different floating \u201Cquoted\u201D 2\u20133',
    );
    expect(normalizeText('di\u001Berent', false)).toBe('dierent');
    expect(normalizeText('\uFF21\uFF22 x\u00B2', true)).toBe('AB x\u00B2');
  });

  it('joins wrapped lines, repairing hyphenation but keeping real hyphens', () => {
    expect(joinLines(['the docu-', 'ment model'])).toBe('the document model');
    expect(joinLines(['the Anglo-', 'Saxon era'])).toBe('the Anglo-Saxon era');
    expect(joinLines(['a self-', 'contained unit'])).toBe('a self-contained unit');
    expect(joinLines(['ISBN 3-540-52381-', '2.'])).toBe('ISBN 3-540-52381-2.');
    expect(joinLines(['soft\u00AD', 'ware and more'])).toBe('software and more');
    expect(joinLines(['one line', 'and the next'])).toBe('one line and the next');
    expect(joinLines(['Dubbel \u2013', 'Taschenbuch'])).toBe('Dubbel \u2013 Taschenbuch');
  });
});

describe('pdf.js as Lectern runs it (patches/pdfjs-dist+5.6.205.patch)', () => {
  it('names each font and its weight in the text layer, so that no operator list is needed for them', async () => {
    const { doc } = await openPdf(warmUpPdf(2));
    try {
      const page = await doc.getPage(1);
      const { styles } = await page.getTextContent();
      const named = Object.values(styles).map((s) => s as { fontName?: string; bold?: boolean });
      expect(named.map((s) => s.fontName)).toEqual(
        expect.arrayContaining(['LWAAAA+LecternSerif', 'LWAAAB+LecternSerif-Bold', 'Helvetica-Bold']),
      );
      expect(named.find((s) => s.fontName === 'LWAAAA+LecternSerif')?.bold).toBe(false);
      // The page reader names every font from the text layer alone: all resolved, while the page's common
      // objects (where fonts arrive only with an operator list) hold none of them.
      const fonts = new FontRegistry();
      const text = await readPageText(page, fonts);
      expect(text.fontIds.size).toBeGreaterThan(2);
      expect([...text.fontIds].every((id) => fonts.isResolved(id))).toBe(true);
      expect(Object.keys(styles).some((id) => page.commonObjs.has(id))).toBe(false);
    } finally {
      await doc.destroy();
    }
  });

  it('inflates streams through the buffered DecompressionStream, to the same bytes as zlib, and refuses bad data', async () => {
    await loadPdfJs();
    expect(globalThis.DecompressionStream).toBe(BufferedDecompressionStream);
    const text = 'BT /F1 10 Tf (same bytes) Tj ET\n'.repeat(200);
    const inflated = new Response(
      new Blob([deflateSync(text)]).stream().pipeThrough(new DecompressionStream('deflate')),
    );
    expect(await inflated.text()).toBe(text);
    const broken = new Response(
      new Blob([deflateSync(text).subarray(0, 40)]).stream().pipeThrough(new DecompressionStream('deflate')),
    );
    await expect(broken.arrayBuffer()).rejects.toThrow();
    expect(() => new DecompressionStream('brotli' as CompressionFormat)).toThrow(TypeError);
  });

  it('inflates a whole input at once (as patched pdf.js asks) to the same bytes as the stream, with its errors', async () => {
    await loadPdfJs();
    const text = 'BT /F1 10 Tf (same bytes) Tj ET\n'.repeat(200);
    const deflated = new Uint8Array(deflateSync(text));
    const viaStream = new Uint8Array(
      await new Response(new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer(),
    );
    const now = BufferedDecompressionStream.inflateNow('deflate', deflated);
    expect(Buffer.from(now).toString('latin1')).toBe(text);
    expect(now).toEqual(viaStream);
    // Its own buffer, whole: pdf.js keeps it as the stream's bytes and may transfer it.
    expect(now.byteOffset).toBe(0);
    expect(now.buffer.byteLength).toBe(now.byteLength);
    // The input is read, not kept or changed.
    expect(deflated).toEqual(new Uint8Array(deflateSync(text)));
    expect(() => BufferedDecompressionStream.inflateNow('deflate', deflated.subarray(0, 40))).toThrow();
    expect(() => BufferedDecompressionStream.inflateNow('brotli', deflated)).toThrow(TypeError);
  });
});

/**
 * PDFs generated for tests and benchmarks with pdfkit and its standard fonts. Every function lays text out
 * line by line at fixed positions (no pdfkit auto-wrapping or page breaks), so the output is byte-for-byte
 * deterministic and the constants below say exactly what is on each page.
 */
import PDFDocument from 'pdfkit';
import { seededRandom } from './seeded-random.js';

type Doc = PDFKit.PDFDocument;
type FontName = 'Helvetica' | 'Helvetica-Bold' | 'Times-Roman' | 'Courier';

const PAGE_W = 595.28; // A4
const PAGE_H = 841.89;
const MARGIN = 72;
const TEXT_W = PAGE_W - 2 * MARGIN;
const BODY_SIZE = 11;
const BODY_LEADING = 13.5;
const FIXED_DATE = new Date(Date.UTC(2026, 0, 1));

function newDoc(title: string): Doc {
  return new PDFDocument({
    size: 'A4',
    margin: 0,
    autoFirstPage: false,
    info: { Title: title, Author: 'Lectern tests', CreationDate: FIXED_DATE, ModDate: FIXED_DATE },
  });
}

/** Ends `doc` and resolves with its bytes. */
export function finish(doc: Doc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.end();
  });
}

function put(doc: Doc, font: FontName, size: number, text: string, x: number, y: number): void {
  doc.font(font).fontSize(size).text(text, x, y, { lineBreak: false });
}

/** Greedy word wrap with the font's real metrics; word widths are cached because long documents repeat them. */
function wrap(
  doc: Doc,
  font: FontName,
  size: number,
  text: string,
  width: number,
  cache?: Map<string, number>,
): string[] {
  doc.font(font).fontSize(size);
  const measure = (s: string): number => {
    if (!cache) return doc.widthOfString(s);
    let w = cache.get(s);
    if (w === undefined) {
      w = doc.widthOfString(s);
      cache.set(s, w);
    }
    return w;
  };
  const space = measure(' ');
  const lines: string[] = [];
  let line = '';
  let lineW = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const w = measure(word);
    if (line && lineW + space + w > width) {
      lines.push(line);
      line = word;
      lineW = w;
    } else {
      lineW = line ? lineW + space + w : w;
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Writes lines top-down from y and returns the y below the last line. */
function putLines(
  doc: Doc,
  font: FontName,
  size: number,
  lines: readonly string[],
  x: number,
  y: number,
  leading: number,
): number {
  let cy = y;
  for (const line of lines) {
    put(doc, font, size, line, x, cy);
    cy += leading;
  }
  return cy;
}

// ---------------------------------------------------------------------------------------------------------
// Structured sample
// ---------------------------------------------------------------------------------------------------------

/** What makeStructuredPdf() puts on its pages, for assertions. Paragraph texts are the logical texts (a word
 * hyphenated across a line end appears whole). */
export const STRUCTURED_PDF = {
  pageCount: 3,
  header: 'Lectern Test Report',
  footers: ['Page 1', 'Page 2', 'Page 3'],
  title: 'Lectern Structured Sample',
  headings: [
    { text: 'Lectern Structured Sample', level: 1, page: 1 },
    { text: 'Introduction', level: 2, page: 1 },
    { text: 'Scope of the Review', level: 3, page: 1 },
    { text: 'Methods', level: 2, page: 2 },
    { text: 'Quarterly Results', level: 3, page: 2 },
    { text: 'Discussion', level: 2, page: 3 },
  ],
  hyphenation: { lineEnd: 'docu-', nextLineStart: 'ment', word: 'document', page: 1 },
  paragraphs: [
    {
      page: 1,
      text:
        'This report exercises the extraction pipeline with a small but complete document. It contains ' +
        'headings at three levels, ordinary paragraphs, lists, a code block, a table with a caption and a ' +
        'page set in two columns, so that every block type the reviewer sees can be checked against a known answer.',
    },
    {
      page: 1,
      text:
        'Lectern reads every page of the uploaded file, one page at a time, and keeps the layout of each document ' +
        'intact, so that reviewers see the blocks in the order in which a careful reader would follow them from the ' +
        'first page of the file to the last one.',
    },
    {
      page: 1,
      text:
        'The review covers three questions: whether the text of each block is complete, whether its type is ' +
        'right, and whether the reading order matches the visual order of the page. The lists below name the items.',
    },
    {
      page: 2,
      text:
        'The method is simple. Each page is read once, its text runs are grouped into lines and blocks, and each ' +
        'block is given a type from its font, its position and its neighbours. The function below shows the idea.',
    },
    {
      page: 2,
      text:
        'The figures in the table are invented for this test. Revenue grows in every quarter while costs stay ' +
        'almost flat, which makes the margin rise steadily through the year.',
    },
  ],
  bulletItems: ['• item one', '• item two', '• item three'],
  numberedItems: ['1. First numbered step', '2. Second numbered step', '3. Third numbered step'],
  code: {
    page: 2,
    lines: [
      'function groupLines(runs) {',
      '  const lines = [];',
      '  for (const run of runs) {',
      '    lines.push(run.text);',
      '  }',
      '  return lines;',
      '}',
    ],
  },
  table: {
    page: 2,
    headerRows: 1,
    rows: [
      ['Quarter', 'Revenue', 'Costs'],
      ['Q1 2026', '1200', '800'],
      ['Q2 2026', '1350', '820'],
      ['Q3 2026', '1500', '845'],
    ],
    caption: 'Table 1: Quarterly figures',
  },
  columns: {
    page: 3,
    leftStart: 'LEFT-COLUMN-START',
    leftEnd: 'LEFT-COLUMN-END',
    rightStart: 'RIGHT-COLUMN-START',
    rightEnd: 'RIGHT-COLUMN-END',
    left: [
      'LEFT-COLUMN-START The left column is read first. A reader who follows the page from top to bottom ' +
        'finishes this column before moving across to the right one, and an extractor must do the same.',
      'Lines of the two columns share the same heights on the page, so reading across them would mix two ' +
        'unrelated sentences into one line of nonsense. This paragraph closes the left column. LEFT-COLUMN-END',
    ],
    right: [
      'RIGHT-COLUMN-START The right column begins at the top of the page, level with the first line of the ' +
        'left column, and it is read only after the left column has ended.',
      'Its last paragraph is shorter than the left one and ends the page. RIGHT-COLUMN-END',
    ],
  },
} as const;

const HYPHENATED_LINES = [
  'Lectern reads every page of the uploaded file, one page at a time, and keeps the layout of each docu-',
  'ment intact, so that reviewers see the blocks in the order in which a careful reader would follow',
  'them from the first page of the file to the last one.',
] as const;

/** Draws the running header and the footer of a structured page. */
function decorate(doc: Doc, pageNo: number): void {
  put(doc, 'Helvetica', 9, STRUCTURED_PDF.header, MARGIN, 36);
  doc
    .moveTo(MARGIN, 50)
    .lineTo(PAGE_W - MARGIN, 50)
    .lineWidth(0.5)
    .stroke();
  const footer = `Page ${pageNo}`;
  doc.font('Helvetica').fontSize(9);
  put(doc, 'Helvetica', 9, footer, (PAGE_W - doc.widthOfString(footer)) / 2, PAGE_H - 48);
}

function heading(doc: Doc, level: 1 | 2 | 3, text: string, y: number): number {
  const size = level === 1 ? 22 : level === 2 ? 16 : 13;
  put(doc, 'Helvetica-Bold', size, text, MARGIN, y);
  return y + size * 1.25 + 8;
}

function paragraph(doc: Doc, text: string, y: number, x = MARGIN, width = TEXT_W): number {
  return (
    putLines(doc, 'Times-Roman', BODY_SIZE, wrap(doc, 'Times-Roman', BODY_SIZE, text, width), x, y, BODY_LEADING) + 10
  );
}

function structuredPage1(doc: Doc): void {
  const [p1, , p3] = STRUCTURED_PDF.paragraphs;
  let y = heading(doc, 1, STRUCTURED_PDF.title, 84);
  y = paragraph(doc, p1.text, y + 4);
  y = heading(doc, 2, 'Introduction', y + 12);
  for (const line of HYPHENATED_LINES) {
    doc.font('Times-Roman').fontSize(BODY_SIZE);
    if (doc.widthOfString(line) > TEXT_W) throw new Error(`hyphenated line too wide: ${line}`);
  }
  y = putLines(doc, 'Times-Roman', BODY_SIZE, HYPHENATED_LINES, MARGIN, y, BODY_LEADING) + 10;
  y = heading(doc, 3, 'Scope of the Review', y + 10);
  y = paragraph(doc, p3.text, y);
  for (const item of STRUCTURED_PDF.bulletItems) {
    put(doc, 'Times-Roman', BODY_SIZE, item, MARGIN + 18, y);
    y += BODY_LEADING + 3;
  }
  y += 12;
  for (const item of STRUCTURED_PDF.numberedItems) {
    put(doc, 'Times-Roman', BODY_SIZE, item, MARGIN + 18, y);
    y += BODY_LEADING + 3;
  }
}

function structuredPage2(doc: Doc): void {
  const p4 = STRUCTURED_PDF.paragraphs[3];
  const p5 = STRUCTURED_PDF.paragraphs[4];
  let y = heading(doc, 2, 'Methods', 84);
  y = paragraph(doc, p4.text, y);
  y = putLines(doc, 'Courier', 10, STRUCTURED_PDF.code.lines, MARGIN + 18, y + 6, 12) + 18;
  y = heading(doc, 3, 'Quarterly Results', y + 6);
  const colX = [MARGIN, MARGIN + 150, MARGIN + 300];
  STRUCTURED_PDF.table.rows.forEach((row, r) => {
    row.forEach((cell, c) => put(doc, r === 0 ? 'Helvetica-Bold' : 'Helvetica', 10, cell, colX[c] ?? MARGIN, y));
    y += 18;
  });
  y += 4;
  put(doc, 'Times-Roman', 10, STRUCTURED_PDF.table.caption, MARGIN, y);
  y += 30;
  paragraph(doc, p5.text, y);
}

function structuredPage3(doc: Doc): void {
  const top = heading(doc, 2, 'Discussion', 84) + 4;
  const gap = 24;
  const colW = (TEXT_W - gap) / 2;
  let y = top;
  for (const text of STRUCTURED_PDF.columns.left) y = paragraph(doc, text, y, MARGIN, colW);
  y = top;
  for (const text of STRUCTURED_PDF.columns.right) y = paragraph(doc, text, y, MARGIN + colW + gap, colW);
}

/** A 3-page report with header, footers, headings, lists, code, a table with caption and a two-column page. */
export async function makeStructuredPdf(): Promise<Buffer> {
  const doc = newDoc(STRUCTURED_PDF.title);
  const pages = [structuredPage1, structuredPage2, structuredPage3];
  pages.forEach((draw, i) => {
    doc.addPage();
    decorate(doc, i + 1);
    draw(doc);
  });
  return finish(doc);
}

// ---------------------------------------------------------------------------------------------------------
// Deterministic text
// ---------------------------------------------------------------------------------------------------------

const WORDS = (
  'the a of and to in is that for on with as by this it from at be are was which an or its their has have ' +
  'review document page block chunk table figure section report analysis result method data value process ' +
  'reader system model archive record question answer evidence source summary change version policy index ' +
  'careful quiet formal early recent simple complex common local general special annual internal external ' +
  'shows keeps reads marks finds gives holds takes meets turns moves tracks builds checks lists names ' +
  'quarterly measured reviewed approved extracted published observed recorded compared estimated'
).split(' ');

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

function sentence(next: () => number): string {
  const n = 10 + Math.floor(next() * 15);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(pick(next, WORDS));
  const first = words[0] ?? 'the';
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return `${words.join(' ')}.`;
}

// ---------------------------------------------------------------------------------------------------------
// Many blocks
// ---------------------------------------------------------------------------------------------------------

const ADJ = ['amber', 'brisk', 'calm', 'dusty', 'eager', 'faint', 'gentle', 'hollow', 'ivory', 'jolly'];
const NOUN = ['falcon', 'harbour', 'lantern', 'meadow', 'orchard', 'pebble', 'quarry', 'ribbon', 'saddle', 'thistle'];
const VERB = ['counts', 'gathers', 'follows', 'guards', 'paints', 'measures', 'carries', 'watches'];

/** The sentence of 1-based paragraph `n` of makeManyBlocksPdf(), e.g. "Paragraph 0001 says the brisk falcon counts ...". */
export function manyBlocksSentence(n: number): string {
  const id = String(n).padStart(4, '0');
  const a = ADJ[n % ADJ.length] ?? 'calm';
  const b = NOUN[Math.floor(n / ADJ.length) % NOUN.length] ?? 'meadow';
  const v = VERB[n % VERB.length] ?? 'counts';
  return `Paragraph ${id} says the ${a} ${b} ${v} every small stone near the river.`;
}

export const MANY_BLOCKS_PER_PAGE = 30;
const MANY_SIZE = 9;
const MANY_MARGIN = 40;

/**
 * `blockCount` one-line paragraphs, 30 a page, and nothing else on the pages. Baselines are ~2.8 font sizes
 * apart: equally spaced lines closer than that (~2.3) read as one double-spaced paragraph to a layout
 * heuristic that learns the line spacing from the page, which is what this PDF must not look like.
 */
export async function makeManyBlocksPdf(blockCount: number): Promise<Buffer> {
  if (!Number.isInteger(blockCount) || blockCount < 1) throw new Error('blockCount must be a positive integer');
  const doc = newDoc(`Many blocks (${blockCount})`);
  const pitch = (PAGE_H - 2 * MANY_MARGIN) / MANY_BLOCKS_PER_PAGE;
  for (let n = 1; n <= blockCount; n++) {
    const slot = (n - 1) % MANY_BLOCKS_PER_PAGE;
    if (slot === 0) doc.addPage();
    put(doc, 'Times-Roman', MANY_SIZE, manyBlocksSentence(n), MARGIN, MANY_MARGIN + slot * pitch);
  }
  return finish(doc);
}

// ---------------------------------------------------------------------------------------------------------
// Long document
// ---------------------------------------------------------------------------------------------------------

/** Pages of makeLongPdf() that open with a heading: page 1 and every third page after it. */
export function longPdfHeadingPages(pages: number): number[] {
  const out: number[] = [];
  for (let p = 1; p <= pages; p += 3) out.push(p);
  return out;
}

/** A text-heavy document: a heading every three pages, 3-5 paragraphs a page, "Page N" footers. Seeded. */
export async function makeLongPdf(pages: number, seed = 42): Promise<Buffer> {
  if (!Number.isInteger(pages) || pages < 1) throw new Error('pages must be a positive integer');
  const doc = newDoc(`Long document (${pages} pages)`);
  const next = seededRandom(seed);
  const widths = new Map<string, number>();
  const bottom = PAGE_H - MARGIN - 10;
  const headingPages = new Set(longPdfHeadingPages(pages));
  let section = 0;
  for (let p = 1; p <= pages; p++) {
    doc.addPage();
    let y = MARGIN;
    if (headingPages.has(p)) {
      section += 1;
      const title = `${section} ${pick(next, ADJ)} ${pick(next, NOUN)} ${pick(next, WORDS)}`;
      put(
        doc,
        'Helvetica-Bold',
        15,
        title.replace(/\b\w/g, (c) => c.toUpperCase()),
        MARGIN,
        y,
      );
      y += 30;
    }
    const paragraphs = 3 + Math.floor(next() * 3);
    for (let i = 0; i < paragraphs; i++) {
      const sentences = Array.from({ length: 4 + Math.floor(next() * 4) }, () => sentence(next));
      let lines = wrap(doc, 'Times-Roman', BODY_SIZE, sentences.join(' '), TEXT_W, widths);
      // The last paragraph of a full page keeps only the sentences that fit: paragraphs never cross pages.
      while (y + lines.length * BODY_LEADING > bottom && sentences.length > 1) {
        sentences.pop();
        lines = wrap(doc, 'Times-Roman', BODY_SIZE, sentences.join(' '), TEXT_W, widths);
      }
      if (y + lines.length * BODY_LEADING > bottom) break;
      y = putLines(doc, 'Times-Roman', BODY_SIZE, lines, MARGIN, y, BODY_LEADING) + 10;
    }
    const footer = `Page ${p}`;
    doc.font('Helvetica').fontSize(9);
    put(doc, 'Helvetica', 9, footer, (PAGE_W - doc.widthOfString(footer)) / 2, PAGE_H - 48);
  }
  return finish(doc);
}

// ---------------------------------------------------------------------------------------------------------
// Blank page
// ---------------------------------------------------------------------------------------------------------

export const BLANK_PAGE_PDF = {
  pageCount: 2,
  heading: 'Scanned Appendix',
  text: 'The first page carries a normal text layer. The second page is left empty, as a scan without OCR would be.',
  blankPages: [2],
} as const;

/** Two pages: page 1 with a heading and a paragraph, page 2 with nothing on it (a needs-OCR candidate). */
export async function makeBlankPagePdf(): Promise<Buffer> {
  const doc = newDoc(BLANK_PAGE_PDF.heading);
  doc.addPage();
  const y = heading(doc, 2, BLANK_PAGE_PDF.heading, MARGIN);
  paragraph(doc, BLANK_PAGE_PDF.text, y);
  doc.addPage();
  return finish(doc);
}

/** One A4 page drawn by `draw` (pdfkit's coordinates: points, origin top-left). */
export async function onePagePdf(draw: (doc: Doc) => void): Promise<Buffer> {
  const doc = newDoc('One page');
  doc.addPage();
  draw(doc);
  return finish(doc);
}

// ---------------------------------------------------------------------------------------------------------
// Pages of any size and /Rotate
// ---------------------------------------------------------------------------------------------------------

export const PAPER = { letter: [612, 792], a4: [PAGE_W, PAGE_H] } as const;

export interface PageSpec {
  /** Width and height in points as stored, before /Rotate. */
  size: readonly [number, number];
  /** The page's /Rotate: viewers show it turned clockwise by this much. */
  rotate?: 0 | 90 | 180 | 270;
  /** Heading of the page; the rest is a paragraph at the top, one in the middle and one at the foot. */
  title: string;
}

/**
 * The user-space transform (pdfkit, origin top-left) from the page as shown to the page as stored, so
 * text written at shown coordinates reads upright in a viewer that honours /Rotate.
 */
function shownToStored(
  rotate: 0 | 90 | 180 | 270,
  w: number,
  h: number,
): [number, number, number, number, number, number] {
  switch (rotate) {
    case 90: // shown (X, Y) is stored (Y, h - X)
      return [0, -1, 1, 0, 0, h];
    case 180:
      return [-1, 0, 0, -1, w, h];
    case 270: // shown (X, Y) is stored (w - Y, X)
      return [0, 1, -1, 0, w, 0];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

/**
 * One page per spec, each with text from its top margin down to its foot (a box drawn on a wrongly
 * sized page drifts most there). Lines are laid out on the page as shown, whatever its /Rotate.
 */
export async function makePagesPdf(specs: readonly PageSpec[]): Promise<Buffer> {
  const doc = new PDFDocument({
    margin: 0,
    autoFirstPage: false,
    info: { Title: 'Sized pages', CreationDate: FIXED_DATE, ModDate: FIXED_DATE },
  });
  const widths = new Map<string, number>();
  for (const [i, spec] of specs.entries()) {
    const [w, h] = spec.size;
    const rotate = spec.rotate ?? 0;
    doc.addPage({ size: [w, h], margin: 0 });
    if (rotate) (doc.page.dictionary.data as { Rotate?: number }).Rotate = rotate;
    const [sw, sh] = rotate === 90 || rotate === 270 ? [h, w] : [w, h];
    doc.save();
    doc.transform(...shownToStored(rotate, w, h));
    const textW = sw - 2 * MARGIN;
    const next = seededRandom(100 + i);
    const para = (y: number | 'foot') => {
      const lines = wrap(
        doc,
        'Times-Roman',
        BODY_SIZE,
        Array.from({ length: 3 }, () => sentence(next)).join(' '),
        textW,
        widths,
      );
      putLines(
        doc,
        'Times-Roman',
        BODY_SIZE,
        lines,
        MARGIN,
        y === 'foot' ? sh - MARGIN - lines.length * BODY_LEADING : y,
        BODY_LEADING,
      );
    };
    put(doc, 'Helvetica-Bold', 16, spec.title, MARGIN, MARGIN);
    para(MARGIN + 30);
    para(sh / 2);
    para('foot');
    doc.restore();
  }
  return finish(doc);
}

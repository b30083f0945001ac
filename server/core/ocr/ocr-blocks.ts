/**
 * OCR lines to the same typed blocks the text-layer extractor produces: paragraphs (tesseract's grouping,
 * split where size or a list marker says a new block starts), headings by size relative to the page's body
 * text, list items by their marker, and tables where cells line up. Every block says it came from OCR and
 * carries the mean confidence of its words.
 */
import { tableMarkdown } from '../extract/pdf/tables.js';
import type { BBox, ExtractedBlock } from '../extract/types.js';
import {
  bodySize,
  flattenLines,
  joinWords,
  meanConfidence,
  spaceBetween,
  unionBox,
  type OcrLine,
  type TessBlock,
  type TessBox,
} from './ocr-lines.js';
import { findOcrTables } from './ocr-tables.js';
import { putRowsInOrder } from './ocr-reading-order.js';

export interface BlockGeometry {
  /** 1-based page number the blocks belong to. */
  page: number;
  /** Maps a box in OCR-image pixels to PDF points on the page (top-left origin), clamped to the page. */
  toPoints: (box: TessBox) => BBox;
  /** Page height in OCR-image pixels (for telling a page number at the foot from text). */
  imageHeight: number;
}

/**
 * Bullets as tesseract reads them: the real glyphs, and what a round bullet usually becomes ("@", "®", "e",
 * "o", ...). Only taken as a bullet when it is a word on its own at the start of a line with text after it.
 */
const BULLETS = new Set([
  '•',
  '·',
  '●',
  '○',
  '◦',
  '▪',
  '■',
  '□',
  '‣',
  '⁃',
  '∙',
  '*',
  '-',
  '–',
  '—',
  '@',
  '®',
  '©',
  '«',
  '»',
  'e',
  'o',
  '¢',
  '+',
  '>',
  '»',
  '§',
]);
const NUMBERED = /^(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)]$/i;

function listMarker(line: OcrLine): 'bullet' | 'number' | null {
  const first = line.words[0];
  if (!first || line.words.length < 2) return null;
  if (BULLETS.has(first.text)) return 'bullet';
  if (NUMBERED.test(first.text)) return 'number';
  return null;
}

function headingLevel(size: number, body: number): number | null {
  const r = size / body;
  if (r >= 1.8) return 1;
  if (r >= 1.45) return 2;
  if (r >= 1.2) return 3;
  return null;
}

/** Joins lines, mending words hyphenated across a line end ("pre-" + "sented"). */
function joinLines(texts: readonly string[]): string {
  let out = '';
  for (const t of texts) {
    if (!out) out = t;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(t)) out = out.slice(0, -1) + t;
    else out += spaceBetween(out, t) + t;
  }
  return out;
}

interface Group {
  lines: OcrLine[];
  /** 'implied': a list item whose marker OCR lost, known by its place after a short item at the same indent. */
  marker: 'bullet' | 'number' | 'implied' | null;
  heading: number | null;
}

function startsNewGroup(g: Group, line: OcrLine, body: number, right: number): boolean {
  const prev = g.lines[g.lines.length - 1] as OcrLine;
  if (line.para !== prev.para) return true;
  if (listMarker(line)) return true;
  // A list item whose line stops well short of the text's right edge has ended.
  if (g.marker && prev.x1 < right - 4 * body) return true;
  if (headingLevel(line.size, body) !== g.heading) return true;
  return line.y0 - prev.y1 > 1.5 * Math.max(line.size, prev.size);
}

/** Where the text of a list item starts (after its marker). */
function itemTextLeft(g: Group): number {
  const first = g.lines[0] as OcrLine;
  return g.marker === 'bullet' || g.marker === 'number' ? (first.words[1]?.x0 ?? first.x0) : first.x0;
}

function groupLines(lines: readonly OcrLine[], body: number): Group[] {
  const groups: Group[] = [];
  const right = Math.max(...lines.map((l) => l.x1));
  for (const line of lines) {
    const g = groups[groups.length - 1];
    if (g && !startsNewGroup(g, line, body, right)) {
      g.lines.push(line);
      continue;
    }
    let marker: Group['marker'] = listMarker(line);
    if (!marker && g?.marker && Math.abs(line.x0 - itemTextLeft(g)) < 0.5 * body) marker = 'implied';
    groups.push({ lines: [line], marker, heading: marker ? null : headingLevel(line.size, body) });
  }
  return groups;
}

function groupBlock(g: Group, geo: BlockGeometry, listLeft: number, body: number): ExtractedBlock {
  const words = g.lines.flatMap((l) => l.words);
  const box = geo.toPoints(unionBox(g.lines));
  const base = { page: geo.page, bbox: box, source: 'ocr' as const, confidence: meanConfidence(words) };
  const texts = g.lines.map((l) => l.text);
  if (g.marker) {
    const first = g.lines[0] as OcrLine;
    // A bullet glyph is layout, not text (and OCR rarely gets its character right); a number stays.
    if (g.marker === 'bullet') texts[0] = joinWords(first.words.slice(1).map((w) => w.text));
    const indent = Math.max(0, Math.round((first.x0 - listLeft) / (2 * body)));
    return { ...base, type: 'list_item', text: joinLines(texts), indent_level: indent };
  }
  const text = joinLines(texts);
  if (g.heading && g.lines.length <= 3 && text.length <= 200 && /\p{L}/u.test(text)) {
    return { ...base, type: 'heading', text, heading_level: g.heading };
  }
  // A lone number in the bottom tenth of the page is its folio.
  if (g.lines.length === 1 && /^[\divxlc]{1,4}$/i.test(text) && (g.lines[0]?.y0 ?? 0) > 0.9 * geo.imageHeight) {
    return { ...base, type: 'footer', text };
  }
  return { ...base, type: 'paragraph', text };
}

/** Blocks of one OCRed page (or region) in reading order. */
export function ocrBlocks(tessBlocks: readonly TessBlock[] | null, geo: BlockGeometry): ExtractedBlock[] {
  const lines = putRowsInOrder(flattenLines(tessBlocks ?? []));
  if (lines.length === 0) return [];
  const body = bodySize(lines);
  const listLeft = Math.min(...lines.filter((l) => listMarker(l)).map((l) => l.x0), Infinity);
  const out: ExtractedBlock[] = [];
  let next = 0;
  const flush = (upTo: number): void => {
    for (const g of groupLines(lines.slice(next, upTo), body)) out.push(groupBlock(g, geo, listLeft, body));
  };
  for (const t of findOcrTables(lines)) {
    flush(t.first);
    const rows = lines.slice(t.first, t.last + 1);
    out.push({
      type: 'table',
      text: tableMarkdown(t.grid),
      table: t.grid,
      page: geo.page,
      bbox: geo.toPoints(unionBox(rows)),
      source: 'ocr',
      confidence: meanConfidence(rows.flatMap((l) => l.words)),
    });
    next = t.last + 1;
  }
  flush(lines.length);
  return out;
}

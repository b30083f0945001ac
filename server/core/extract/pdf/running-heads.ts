/**
 * Running heads and feet: lines near the top or bottom edge that repeat across pages.
 *
 * Three signals, any of which marks a line:
 *  - the same text (digits folded, so "Page 3" and "Page 4" match) in the same zone on several pages;
 *  - a bare page number ("7", "- 7 -", "Page 7 of 30", "vii") in the zone;
 *  - a number at either end of the line that tracks the page index with a constant offset on
 *    several pages ("3.3. SPLIT EQUATIONS 5" / "4.1. MATRICES 12"): section-dependent running heads
 *    whose words change but whose page numbers do not lie.
 */
import type { Line, PageLayout } from './model.js';
import { lineSegments } from './tables.js';

/**
 * Running heads are among the first / last two rows of a page, within this fraction of the page
 * height from its edge (generous: A4 pages set with US-letter margins leave wide bottoms).
 */
const ZONE = 0.2;

const PAGE_NUMBER_RE = /^(?:page\s+)?[-–—]?\s*(?:\d{1,5}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,5})?$/i;
const ROMAN_TOKEN_RE = /\b[ivxlcdm]{1,7}\b/g;

export function headKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(ROMAN_TOKEN_RE, (m) => (/^[ivx]+$/.test(m) ? '#' : m))
    .replace(/\s+/g, ' ')
    .trim();
}

interface Candidate {
  page: number;
  line: Line;
  zone: 'top' | 'bottom';
  key: string;
  outermost: boolean;
}

/**
 * Integers standing apart (over 1 em of space) at the start or end of a line, as page numbers in
 * running heads do. Footnotes also start with a number, but right next to their text.
 */
function edgeNumbers(line: Line): number[] {
  const out: number[] = [];
  const runs = line.runs;
  const first = runs[0];
  const second = runs[1];
  if (first && second && /^\d{1,5}$/.test(first.text.trim()) && second.x0 - first.x1 > line.size) {
    out.push(Number(first.text.trim()));
  }
  const last = runs[runs.length - 1];
  const before = runs[runs.length - 2];
  if (last && before && /^\d{1,5}$/.test(last.text.trim()) && last.x0 - before.x1 > line.size) {
    out.push(Number(last.text.trim()));
  }
  return out;
}

/** Lines of the first / last two rows of a page, when those rows are near the page's edge. */
function edgeLines(p: PageLayout): Array<{ line: Line; zone: 'top' | 'bottom'; outermost: boolean }> {
  const lines = p.regions.flatMap((r) => r.lines).filter((l) => l.text);
  if (lines.length === 0) return [];
  const rowsOf = (sorted: Line[], key: (l: Line) => number): Line[] => {
    const out: Line[] = [];
    const rowKeys: number[] = [];
    for (const l of sorted) {
      const k = key(l);
      if (!rowKeys.some((r) => Math.abs(r - k) < 3)) {
        if (rowKeys.length === 2) break;
        rowKeys.push(k);
      }
      out.push(l);
    }
    return out;
  };
  const top = rowsOf(
    [...lines].sort((a, b) => a.top - b.top),
    (l) => l.top,
  ).filter((l) => l.bottom <= p.frameHeight * ZONE);
  const bottom = rowsOf(
    [...lines].sort((a, b) => b.bottom - a.bottom),
    (l) => l.bottom,
  ).filter((l) => l.top >= p.frameHeight * (1 - ZONE));
  const firstTop = Math.min(...top.map((l) => l.top));
  const lastBottom = Math.max(...bottom.map((l) => l.bottom));
  const out: Array<{ line: Line; zone: 'top' | 'bottom'; outermost: boolean }> = top.map((line) => ({
    line,
    zone: 'top',
    outermost: line.top < firstTop + 3,
  }));
  for (const line of bottom) {
    if (!top.includes(line)) out.push({ line, zone: 'bottom', outermost: line.bottom > lastBottom - 3 });
  }
  return out;
}

/** Sets line.role on running heads/feet of all pages. */
export function markRunningHeads(pages: PageLayout[]): void {
  const candidates: Candidate[] = [];
  for (const p of pages) {
    if (p.needsOcr) continue;
    for (const { line, zone, outermost } of edgeLines(p)) {
      candidates.push({ page: p.page, line, zone, outermost, key: zone + '|' + headKey(line.text) });
    }
  }
  const textPages = pages.filter((p) => !p.needsOcr).length;
  const minRepeat = textPages <= 4 ? 2 : 3;
  // Repeated text must recur on a fair share of the pages: a table head at the top of three
  // consecutive pages of a long listing is not a running head.
  const minTextRepeat = Math.max(minRepeat, Math.ceil(0.15 * textPages));
  // Page numbers inside a head must follow the page index on a good share of the pages; section
  // numbers of headings that happen to open a few consecutive pages do so only briefly.
  const minTracking = Math.max(minRepeat, Math.ceil(0.4 * textPages));
  const pagesByKey = new Map<string, Set<number>>();
  for (const c of candidates) {
    let set = pagesByKey.get(c.key);
    if (!set) pagesByKey.set(c.key, (set = new Set()));
    set.add(c.page);
  }
  // Heads are often pieces set apart ("1010   preliminary draft   TUGboat"), and a page whose
  // columns end differently can bring two feet onto one line: pieces count on their own too.
  const pieces = new Map<Candidate, string[]>();
  const pagesByPiece = new Map<string, Set<number>>();
  for (const c of candidates) {
    const keys = lineSegments(c.line).map((seg) => `${c.zone}|${headKey(seg.text)}`);
    pieces.set(c, keys);
    for (const k of new Set(keys)) {
      let set = pagesByPiece.get(k);
      if (!set) pagesByPiece.set(k, (set = new Set()));
      set.add(c.page);
    }
  }
  const pagesByOffset = new Map<string, Set<number>>();
  for (const c of candidates) {
    for (const n of edgeNumbers(c.line)) {
      const k = `${c.zone}|${n - c.page}`;
      let set = pagesByOffset.get(k);
      if (!set) pagesByOffset.set(k, (set = new Set()));
      set.add(c.page);
    }
  }
  for (const c of candidates) {
    // Words, not just numbers: rows of a matrix repeat on slides too.
    const repeated = textPages >= 2 && (pagesByKey.get(c.key)?.size ?? 0) >= minTextRepeat && /\p{L}{3}/u.test(c.key);
    // A bare number only on the outermost row ("—1—" under a running head opens a chapter).
    const pageNumber = c.outermost && PAGE_NUMBER_RE.test(c.line.text.trim());
    const tracksPage = edgeNumbers(c.line).some(
      (n) => (pagesByOffset.get(`${c.zone}|${n - c.page}`)?.size ?? 0) >= minTracking,
    );
    const keys = pieces.get(c) ?? [];
    const piecesRepeat =
      textPages >= 2 &&
      keys.length >= 2 &&
      keys.some((k) => !/^\w+\|#$/.test(k)) &&
      keys.every(
        (k) => /^\w+\|#$/.test(k) || ((pagesByPiece.get(k)?.size ?? 0) >= minTextRepeat && /\p{L}{3}/u.test(k)),
      );
    if (repeated || piecesRepeat || pageNumber || tracksPage) c.line.role = c.zone === 'top' ? 'header' : 'footer';
  }
}

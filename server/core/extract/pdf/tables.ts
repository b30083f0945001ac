/**
 * Aligned-column tables: consecutive lines that break into cells at wide gaps, whose cells line up
 * in columns. Columns are found as vertical bands that no cell of the table's rows covers, which
 * works for left-, right- and centre-aligned columns alike (booktabs, tabular, longtable, tabularx).
 */
import type { TableGrid } from '../types.js';
import type { Line, Run } from './model.js';
import { isMathLine, needsSpace } from './lines.js';

// The writer lives beside the types so the review desk's grid editor writes the same text.
export { tableMarkdown } from '../table-markdown.js';

export interface TableHit {
  /** Index range [first, last] of the table's lines in the region's line list. */
  first: number;
  last: number;
  grid: TableGrid;
}

interface Segment {
  x0: number;
  x1: number;
  text: string;
}

const MIN_ROWS = 3;

/** Lines are asked for their cells again and again (table windows overlap); computed once. */
const segmentCache = new WeakMap<Line, Segment[]>();

/** Whether run `r` goes on the cell of the run before it: cells split at gaps over 0.8 em (word spaces are ~0.3 em). */
function sameCell(line: Line, prev: Run | undefined, r: Run): prev is Run {
  return !!prev && r.x0 - prev.x1 <= 0.8 * Math.max(line.size, r.size);
}

/** How many cells lineSegments gives a line, without making their text (every line is counted). */
function cellCount(line: Line): number {
  let n = 0;
  let prev: Run | undefined;
  for (const r of line.runs) {
    if (!sameCell(line, prev, r)) n++;
    prev = r;
  }
  return n;
}

/** Cells of one line: its runs split at wide gaps. */
export function lineSegments(line: Line): Segment[] {
  const cached = segmentCache.get(line);
  if (cached) return cached;
  const segs: Segment[] = [];
  let cur: Segment | undefined;
  let prev: Run | undefined;
  for (const r of line.runs) {
    if (cur && sameCell(line, prev, r)) {
      cur.text += (needsSpace(prev, r) ? ' ' : '') + r.text;
      cur.x1 = Math.max(cur.x1, r.x1);
    } else {
      cur = { x0: r.x0, x1: r.x1, text: r.text };
      segs.push(cur);
    }
    prev = r;
  }
  for (const s of segs) s.text = s.text.replace(/\s+/g, ' ').trim();
  segmentCache.set(line, segs);
  return segs;
}

/**
 * Code and display math also line up in columns but are not tables: a table starts at a line that
 * is neither, though it may go on through typewriter-set rows that still have several cells.
 */
function canStart(line: Line): boolean {
  return line.mono < 0.8 && !isMathLine(line) && !line.role;
}

function canContinue(line: Line, cells: number): boolean {
  return !isMathLine(line) && !line.role && (line.mono < 0.8 || cells >= 2);
}

const NUMERIC_RE = /^[\s$€£¥(+\-−–]*\d[\d.,\s]*%?\)?\*{0,3}$/;

function isNumeric(cell: string): boolean {
  return NUMERIC_RE.test(cell);
}

/** Gutters of a candidate table: bands of >= 0.5 em that none (or very few) of the rows cover. */
function columnBands(rows: Segment[][], size: number): Array<[number, number]> | null {
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const segs of rows) {
    for (const s of segs) {
      if (s.x0 < x0) x0 = s.x0;
      if (s.x1 > x1) x1 = s.x1;
    }
  }
  const n = Math.ceil(x1 - x0) + 1;
  if (!(n > 1) || n > 5000) return null;
  const count = new Int32Array(n);
  for (const segs of rows) {
    for (const s of segs) {
      const a = Math.max(0, Math.floor(s.x0 - x0));
      const b = Math.min(n - 1, Math.ceil(s.x1 - x0));
      for (let i = a; i <= b; i++) count[i] = (count[i] ?? 0) + 1;
    }
  }
  // A cell spanning columns (a multicolumn head) may bridge one gutter; tolerate that in big tables.
  const tolerance = Math.floor(rows.length * 0.1);
  const cuts: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const open = i < n && (count[i] ?? 0) <= tolerance;
    if (open && start < 0) start = i;
    if (!open && start >= 0) {
      if (i - start >= 0.5 * size) cuts.push([x0 + start, x0 + i]);
      start = -1;
    }
  }
  return cuts;
}

/** Cell texts, plus the right edge of each cell (for the justified-prose test). */
function toGrid(lines: Line[], cuts: Array<[number, number]>): { rows: string[][]; ends: number[][] } {
  const ncols = cuts.length + 1;
  const ends: number[][] = Array.from({ length: ncols }, () => []);
  const rows = lines.map((line) => {
    const row: string[] = new Array<string>(ncols).fill('');
    for (const s of lineSegments(line)) {
      // A cell belongs to the column its left edge falls in; a spanning cell stays in its first
      // column and leaves the others empty.
      let col = 0;
      while (col < cuts.length && s.x0 >= (cuts[col]?.[0] ?? Infinity)) col++;
      row[col] = row[col] ? `${row[col]} ${s.text}` : s.text;
      // (Dot leaders of a table of contents end flush too, by design.)
      if (s.text.length > 30 && !s.text.includes('. . .')) ends[col]?.push(s.x1);
    }
    return row;
  });
  return { rows, ends };
}

/**
 * Long cells ending at one x in most rows are justified text: two text columns (or a column
 * beside code) that the layout pass took for one, not a table.
 */
function justifiedColumn(ends: number[][]): boolean {
  return ends.some((xs) => {
    if (xs.length < 4) return false;
    const max = Math.max(...xs);
    return xs.filter((x) => x >= max - 1.5).length >= 0.6 * xs.length;
  });
}

function headerRows(rows: string[][], lines: Line[]): number {
  const textOnly = (row: string[]): boolean => row.some((c) => c) && row.every((c) => !c || !isNumeric(c));
  const body = rows.slice(1);
  const bodyHasNumbers = body.some((r) => r.some((c) => c && isNumeric(c)));
  const first = lines[0];
  const boldHead = !!first && first.bold > 0.6 && lines.slice(1).every((l) => l.bold < 0.5);
  const gaps = lines.slice(1).map((l, i) => l.y - (lines[i] as Line).y);
  const sorted = [...gaps].sort((a, b) => a - b);
  const typical = sorted[Math.floor(sorted.length / 2)] ?? 0;
  // booktabs puts \midrule (extra space) under the head.
  const spacedHead = (gaps[0] ?? 0) > 1.25 * typical;
  const r0 = rows[0];
  const r1 = rows[1];
  if (!r0 || !textOnly(r0) || !(bodyHasNumbers || boldHead || spacedHead)) return 0;
  // A spanning super-head ("Item" over "Animal | Description") sits on a second head row.
  const filled = (r: string[]): number => r.filter((c) => c).length;
  if (r1 && textOnly(r1) && filled(r0) < filled(r1) && rows.length > 3) {
    const rest = rows.slice(2);
    if (rest.some((r) => r.some((c) => c && isNumeric(c))) || (gaps[1] ?? 0) > 1.25 * typical) return 2;
  }
  return 1;
}

/** Tries to read lines[first..last] as a table. */
function tryTable(lines: Line[], first: number, last: number): TableHit | null {
  const window = lines.slice(first, last + 1);
  const segs = window.map(lineSegments);
  const multi = segs.filter((s) => s.length >= 2);
  if (multi.length < MIN_ROWS) return null;
  const size = window.reduce((s, l) => s + l.size, 0) / window.length;
  const cuts = columnBands(multi, size);
  if (!cuts || cuts.length === 0) return null;
  const { rows, ends } = toGrid(window, cuts);
  if (justifiedColumn(ends)) return null;
  const full = rows.filter((r) => r.filter((c) => c).length >= 2).length;
  if (full < MIN_ROWS) return null;
  // Markers in the first column and text in the second: a numbered list, not a table.
  if (rows[0]?.length === 2 && rows.every((r) => !r[0] || /^(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)]?$|^\W$/i.test(r[0]))) {
    return null;
  }
  // Mostly typewriter rows: aligned program output or numbered code lines, which stay code.
  if (window.filter((l) => l.mono >= 0.6).length > 0.5 * window.length) return null;
  const cells = rows.flat().filter((c) => c);
  const avgLen = cells.reduce((s, c) => s + c.length, 0) / Math.max(1, cells.length);
  // Long cells mean prose beside a label (or two text columns read as one): not a table.
  if (avgLen > 32) return null;
  const grid: TableGrid = { rows, header_rows: 0 };
  grid.header_rows = headerRows(rows, window);
  return { first, last, grid };
}

/**
 * Finds tables in one region's lines. A candidate starts at a line with two or more cells and runs
 * on through lines with cells, bridging a single one-cell line (an empty-celled row, a wrapped
 * cell), as long as the line spacing stays table-like.
 */
export function findTables(lines: Line[]): TableHit[] {
  const hits: TableHit[] = [];
  const cells = lines.map((l) => (l.role ? 0 : cellCount(l)));
  const ok = (k: number): boolean => {
    const l = lines[k];
    return !!l && canContinue(l, cells[k] ?? 0);
  };
  let i = 0;
  while (i < lines.length) {
    const startLine = lines[i] as Line;
    if ((cells[i] ?? 0) < 2 || !canStart(startLine)) {
      i++;
      continue;
    }
    // One-cell lines (a row with one filled cell, a wrapped cell) may sit inside a table.
    const bridge = (n: number): boolean => {
      const l = lines[n];
      return !!l && !l.role && !isMathLine(l) && (cells[n] ?? 0) === 1 && l.text.length <= 40;
    };
    let j = i;
    for (;;) {
      const cur = lines[j] as Line;
      const next = lines[j + 1];
      if (!next || next.y - cur.y > 2.6 * Math.max(cur.size, next.size)) break;
      if ((cells[j + 1] ?? 0) >= 2 && ok(j + 1)) {
        j++;
        continue;
      }
      // ... but only if a multi-cell line follows closely after at most three of them.
      let k = j + 1;
      while (k <= j + 3 && bridge(k)) k++;
      const after = lines[k];
      const last = lines[k - 1] as Line;
      if (k > j + 1 && after && ok(k) && (cells[k] ?? 0) >= 2 && after.y - last.y <= 2.6 * last.size) {
        j = k;
        continue;
      }
      break;
    }
    // A short one-cell line right above (a spanning super-head) joins the table.
    let start = i;
    const above = lines[i - 1];
    if (
      above &&
      canStart(above) &&
      (cells[i - 1] ?? 0) === 1 &&
      above.text.length <= 30 &&
      !/^(table|tab\.|figure|fig\.)/i.test(above.text) &&
      startLine.y - above.y <= 2 * startLine.size &&
      above.x0 >= startLine.x0 - 2 &&
      above.x1 <= startLine.x1 + 2 &&
      !hits.some((h) => h.last >= i - 1)
    ) {
      start = i - 1;
    }
    const hit =
      j - i + 1 >= MIN_ROWS ? (tryTable(lines, start, j) ?? (start < i ? tryTable(lines, i, j) : null)) : null;
    if (hit) {
      hits.push(hit);
      i = j + 1;
    } else {
      // A later start may still make a table (a stray first line spoiled it), but retrying every
      // suffix of a long failed run would be quadratic on pages of many short aligned lines.
      i += Math.max(1, Math.floor((j - i + 1) / 4));
    }
  }
  return hits;
}

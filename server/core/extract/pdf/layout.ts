/**
 * Page layout: runs -> rows -> regions (full width, columns, margin notes) in reading order.
 *
 * Column detection looks for a gutter: a vertical band that (almost) no row of text crosses, with
 * enough text on both sides. Rows that do cross it (a title, an abstract, a full-width float) split
 * the page into horizontal sections; inside a columnar section the columns are read one after the
 * other, so text above the columns comes first and text below them last.
 */
import { buildLine } from './lines.js';
import type { Line, Region, Run } from './model.js';

interface Row {
  runs: Run[];
  y: number;
  size: number;
  /** Run extents merged across word gaps, sorted by x. */
  spans: Array<[number, number]>;
}

interface Gutter {
  x0: number;
  x1: number;
  center: number;
  /** 'margin' when one side holds only short notes (marginal paragraphs, side labels). */
  kind: 'column' | 'margin';
  /** For margins: the side the notes are on. */
  noteSide?: 'left' | 'right';
}

/** Groups runs whose baselines are within half a font size; sub/superscripts join their line. */
function groupRows(runs: Run[]): Row[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const rows: Row[] = [];
  let cur: Row | undefined;
  for (const r of sorted) {
    if (cur && Math.abs(r.y - cur.y) <= 0.5 * Math.max(cur.size, r.size)) {
      cur.runs.push(r);
      // Anchor the row on its largest text so a leading superscript does not drag it upwards.
      if (r.size > cur.size * 1.05) {
        cur.size = r.size;
        cur.y = r.y;
      }
      continue;
    }
    cur = { runs: [r], y: r.y, size: r.size, spans: [] };
    rows.push(cur);
  }
  for (const row of rows) row.spans = mergeSpans(row.runs);
  return rows;
}

function mergeSpans(runs: Run[]): Array<[number, number]> {
  const byX = [...runs].sort((a, b) => a.x0 - b.x0);
  const spans: Array<[number, number]> = [];
  for (const r of byX) {
    const last = spans[spans.length - 1];
    // Word gaps (< ~0.5 em) are bridged; a column gutter or a table's cell gap is not.
    if (last && r.x0 - last[1] < 0.5 * r.size) {
      if (r.x1 > last[1]) last[1] = r.x1;
    } else {
      spans.push([r.x0, r.x1]);
    }
  }
  return spans;
}

function crosses(row: Row, x: number): boolean {
  return row.spans.some(([a, b]) => a < x - 1 && b > x + 1);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Width in characters-ish of each row's text on one side of x (0 when the row has none there). */
function sideChars(rows: Row[], x: number, side: 'left' | 'right'): number[] {
  const out: number[] = [];
  for (const row of rows) {
    let n = 0;
    for (const r of row.runs) {
      const mid = (r.x0 + r.x1) / 2;
      if (side === 'left' ? mid < x : mid > x) n += r.text.length;
    }
    if (n > 0) out.push(n);
  }
  return out;
}

function findGutters(rows: Row[]): Gutter[] {
  if (rows.length < 6) return [];
  let minX = Infinity;
  let maxX = -Infinity;
  for (const row of rows) {
    for (const [a, b] of row.spans) {
      if (a < minX) minX = a;
      if (b > maxX) maxX = b;
    }
  }
  const extent = maxX - minX;
  if (!(extent > 50)) return [];
  // 1-pt bins (coarser on huge pages) with the total weight of the rows covering each bin.
  const binW = Math.max(1, extent / 1500);
  const nBins = Math.ceil(extent / binW) + 1;
  const cover = new Float64Array(nBins);
  let total = 0;
  const sizes: number[] = [];
  for (const row of rows) {
    total += row.size;
    sizes.push(row.size);
    for (const [a, b] of row.spans) {
      const i0 = Math.max(0, Math.floor((a - minX) / binW));
      const i1 = Math.min(nBins - 1, Math.floor((b - minX) / binW));
      for (let i = i0; i <= i1; i++) cover[i] = (cover[i] ?? 0) + row.size;
    }
  }
  const bodySize = median(sizes);
  const minWidth = Math.max(4, 0.6 * bodySize);
  // Full-width material (title block, abstract, wide floats, running heads) may cross a real
  // gutter; a quarter of the text is generous and still rules out ordinary single-column pages.
  const maxCross = 0.25 * total;
  const lo = Math.floor((0.04 * extent) / binW);
  const hi = nBins - 1 - lo;
  const bands: Array<[number, number]> = [];
  let start = -1;
  for (let i = lo; i <= hi + 1; i++) {
    const open = i <= hi && (cover[i] ?? 0) <= maxCross;
    if (open && start < 0) start = i;
    if (!open && start >= 0) {
      if ((i - start) * binW >= minWidth) bands.push([minX + start * binW, minX + i * binW]);
      start = -1;
    }
  }
  const gutters: Gutter[] = [];
  for (const [x0, x1] of bands) {
    const center = (x0 + x1) / 2;
    const open = rows.filter((r) => !crosses(r, center));
    const left = sideChars(open, center, 'left');
    const right = sideChars(open, center, 'right');
    // A text column has many rows of real line length on its side.
    const leftText = left.length >= 4 && median(left) >= 15;
    const rightText = right.length >= 4 && median(right) >= 15;
    // (Marginal notes beside a single column are marginNotes()'s business.)
    if (leftText && rightText) gutters.push({ x0, x1, center, kind: 'column' });
  }
  // Prefer real columns; of overlapping candidates keep the widest.
  gutters.sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0));
  const kept: Gutter[] = [];
  for (const g of gutters) {
    if (kept.some((k) => Math.abs(k.center - g.center) < 0.1 * extent)) continue;
    kept.push(g);
  }
  const columns = kept.filter((g) => g.kind === 'column');
  const result = columns.length > 0 ? columns : kept.slice(0, 1);
  return result.sort((a, b) => a.center - b.center);
}

/** Splits one row's runs at the gutters into per-column run lists (index = column). */
function splitRow(row: Row, cuts: number[]): Run[][] {
  const parts: Run[][] = cuts.map(() => []);
  parts.push([]);
  for (const r of row.runs) {
    const mid = (r.x0 + r.x1) / 2;
    let i = 0;
    while (i < cuts.length && mid > (cuts[i] ?? Infinity)) i++;
    parts[i]?.push(r);
  }
  return parts;
}

function rowsToLines(rows: Run[][]): Line[] {
  // Rows come sorted by baseline, so lines are in top-to-bottom order.
  const lines: Line[] = [];
  for (const runs of rows) if (runs.length > 0) lines.push(buildLine(runs));
  return lines;
}

function extentOf(lines: Line[]): [number, number] {
  let a = Infinity;
  let b = -Infinity;
  for (const l of lines) {
    if (l.x0 < a) a = l.x0;
    if (l.x1 > b) b = l.x1;
  }
  return [a, b];
}

function modeOf(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  let best: number | undefined;
  let bestN = 1;
  for (const v of values) {
    const k = Math.round(v);
    const n = (counts.get(k) ?? 0) + 1;
    counts.set(k, n);
    if (n > bestN) {
      bestN = n;
      best = k;
    }
  }
  return best;
}

const MARKER_ONLY_RE = /^[\s(\[]*(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)\]]?\s*$|^\W{0,2}$/i;

/**
 * Marginal notes of a single-column page (\marginpar, side labels): text entirely outside the
 * body's edge (the most common line start / end), with no row bridging the edge. Returns each
 * row's note runs, or null when the page has none.
 */
function marginNotes(rows: Row[]): Array<{ row: Row; notes: Run[] }> | null {
  if (rows.length < 8) return null;
  const left = modeOf(rows.map((r) => r.spans[0]?.[0] ?? 0));
  const right = modeOf(rows.map((r) => r.spans[r.spans.length - 1]?.[1] ?? 0));
  for (const side of ['left', 'right'] as const) {
    const edge = side === 'left' ? left : right;
    if (edge === undefined) continue;
    const outside = (r: Run): boolean => (side === 'left' ? r.x1 < edge - 2 : r.x0 > edge + 2);
    const bridging = rows.filter((row) =>
      row.runs.some((r) => (side === 'left' ? r.x0 < edge - 2 && r.x1 > edge + 2 : r.x0 < edge - 2 && r.x1 > edge + 2)),
    );
    if (bridging.length > 0.05 * rows.length) continue;
    const found: Array<{ row: Row; notes: Run[] }> = [];
    for (const row of rows) {
      const notes = row.runs.filter(outside);
      if (notes.length === 0) continue;
      const text = notes.map((r) => r.text).join('');
      // A hanging list number or bullet is part of its line, not a note.
      if (MARKER_ONLY_RE.test(text) || text.trim().length < 3) continue;
      found.push({ row, notes });
    }
    if (found.length > 0 && found.length <= 0.5 * rows.length) return found;
  }
  return null;
}

/**
 * Which rows are read across the whole width: those crossing a gutter, plus stretches of rows
 * that do not cross it but whose pieces are too short to be column text (a table or a figure's
 * labels spanning both columns, whose own gaps happen to line up with the gutter).
 */
function fullWidthRows(rows: Row[], cuts: number[], gutters: Gutter[]): boolean[] {
  const full = rows.map((r) => cuts.some((c) => crosses(r, c)));
  if (gutters.some((g) => g.kind === 'margin')) return full;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const r of rows) {
    for (const [a, b] of r.spans) {
      if (a < minX) minX = a;
      if (b > maxX) maxX = b;
    }
  }
  // Column k spans from the end of the gutter on its left to the gutter on its right.
  const lefts = [minX, ...gutters.map((g) => g.x1)];
  const rights = [...gutters.map((g) => g.x0), maxX];
  let i = 0;
  while (i < rows.length) {
    if (full[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && !full[j]) j++;
    // Column text: on some column, a good share of the rows start at the column's left edge and
    // fill most of its width. A running head at the page's edge does not count either way.
    const from = i === 0 && j - i >= 2 ? i + 1 : i;
    const to = j === rows.length && j - from >= 2 ? j - 1 : j;
    let columnar = false;
    for (let k = 0; k < lefts.length && !columnar; k++) {
      const lo = lefts[k] as number;
      const hi = rights[k] as number;
      let wide = 0;
      for (let r = from; r < to; r++) {
        const size = (rows[r] as Row).size;
        let a = Infinity;
        let b = -Infinity;
        for (const run of (rows[r] as Row).runs) {
          const mid = (run.x0 + run.x1) / 2;
          if (mid < lo - 2 * size || mid > hi + 2 * size) continue;
          if (run.x0 < a) a = run.x0;
          if (run.x1 > b) b = run.x1;
        }
        if (a <= lo + 1.5 * size && b - a >= 0.6 * (hi - lo)) wide++;
      }
      columnar = wide >= Math.max(1, 0.3 * (to - from));
    }
    // One or two rows between full-width rows are the tail of a spanning table, not columns.
    const sandwiched = i > 0 && j < rows.length && j - i <= 2;
    if (!columnar || sandwiched) for (let r = i; r < j; r++) full[r] = true;
    i = j;
  }
  return full;
}

/** Lays out one page's runs into regions in reading order. */
export function layoutPage(runs: Run[]): Region[] {
  const rows = groupRows(runs);
  const gutters = findGutters(rows);
  if (gutters.length === 0) {
    const notes = marginNotes(rows);
    const noteRuns = new Set(notes?.flatMap((n) => n.notes));
    const lines = rowsToLines(rows.map((r) => r.runs.filter((run) => !noteRuns.has(run))));
    const [x0, x1] = extentOf(lines);
    const regions: Region[] = [];
    if (notes) {
      const noteLines = rowsToLines(notes.map((n) => n.notes));
      const [n0, n1] = extentOf(noteLines);
      regions.push({ kind: 'margin', section: 0, x0: n0, x1: n1, lines: noteLines });
    }
    if (lines.length) regions.push({ kind: notes ? 'column' : 'full', section: 0, x0, x1, lines });
    return regions;
  }
  const cuts = gutters.map((g) => g.center);
  const full = fullWidthRows(rows, cuts, gutters);
  const regions: Region[] = [];
  let i = 0;
  let section = 0;
  while (i < rows.length) {
    if (full[i]) {
      const runsOfRows: Run[][] = [];
      while (i < rows.length && full[i]) runsOfRows.push((rows[i++] as Row).runs);
      const lines = rowsToLines(runsOfRows);
      const [x0, x1] = extentOf(lines);
      regions.push({ kind: 'full', section: section++, x0, x1, lines });
      continue;
    }
    const cols: Run[][] = cuts.map(() => []);
    cols.push([]);
    while (i < rows.length && !full[i]) {
      splitRow(rows[i++] as Row, cuts).forEach((part, k) => cols[k]?.push(...part));
    }
    const colSection = section++;
    cols.forEach((colRuns, k) => {
      // Rows are regrouped per column: page-wide rows can pair a superscript of one column with
      // a line of the other whose baseline happens to be close.
      const lines = rowsToLines(groupRows(colRuns).map((r) => r.runs));
      if (lines.length === 0) return;
      const [x0, x1] = extentOf(lines);
      let kind: Region['kind'] = 'column';
      const g = gutters[0];
      if (gutters.length === 1 && g?.kind === 'margin') {
        kind = (k === 0) === (g.noteSide === 'left') ? 'margin' : 'column';
      }
      regions.push({ kind, section: colSection, x0, x1, lines });
    });
  }
  return regions;
}

/**
 * Column gutters: vertical bands that (almost) no row of text crosses, with text columns on both
 * sides; and which rows of a page with gutters are read across the whole width anyway.
 */
import { crosses, median, type Row } from './rows.js';

export interface Gutter {
  x0: number;
  x1: number;
  center: number;
  /** Found from the text itself (not from the document's earlier pages). */
  strong: boolean;
}

interface SideStats {
  /** Characters of each row's text on the side (rows without text there left out). */
  chars: number[];
  /** Width of each row's text on the side, as a fraction of the side's full extent. */
  fill: number[];
}

/** What the rows hold on one side of x, within [lo, hi]. */
function sideStats(rows: Row[], x: number, side: 'left' | 'right', lo: number, hi: number): SideStats {
  const chars: number[] = [];
  const fill: number[] = [];
  const extent = side === 'left' ? x - lo : hi - x;
  for (const row of rows) {
    let n = 0;
    let a = Infinity;
    let b = -Infinity;
    for (const r of row.runs) {
      const mid = (r.x0 + r.x1) / 2;
      if (side === 'left' ? mid >= x : mid <= x) continue;
      n += r.text.length;
      if (r.x0 < a) a = r.x0;
      if (r.x1 > b) b = r.x1;
    }
    if (n === 0) continue;
    chars.push(n);
    fill.push(extent > 0 ? (b - a) / extent : 0);
  }
  return { chars, fill };
}

/** A text column: several rows of real line length that mostly fill the column's width. */
function isTextColumn(s: SideStats): boolean {
  return s.chars.length >= 4 && median(s.chars) >= 15 && median(s.fill) >= 0.6;
}

/**
 * Column gutters of a page. A band is a gutter when the text on both sides reads as columns of
 * text; or when it is where earlier pages of the document had their gutter (`priors`) and
 * nothing but a running head crosses it (a page of code beside a table is still two columns);
 * or when a clean band down the middle separates two long stacks of short lines (an index).
 */
export function findGutters(rows: Row[], priors: readonly number[]): Gutter[] {
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
    const crossWeight = total - open.reduce((sum, r) => sum + r.size, 0);
    const left = sideStats(open, center, 'left', minX, maxX);
    const right = sideStats(open, center, 'right', minX, maxX);
    if (isTextColumn(left) && isTextColumn(right)) {
      gutters.push({ x0, x1, center, strong: true });
      continue;
    }
    const rowsBoth = Math.min(left.chars.length, right.chars.length);
    const prior = priors.some((p) => p >= x0 - 2 && p <= x1 + 2);
    if (prior && crossWeight <= 0.1 * total && rowsBoth >= 3) {
      gutters.push({ x0, x1, center, strong: false });
      continue;
    }
    const middle = Math.abs(center - (minX + maxX) / 2) <= 0.1 * extent;
    if (middle && x1 - x0 >= bodySize && crossWeight <= 0.03 * total && rowsBoth >= 8) {
      gutters.push({ x0, x1, center, strong: false });
    }
  }
  // Of overlapping candidates keep the widest.
  gutters.sort((a, b) => b.x1 - b.x0 - (a.x1 - a.x0));
  const kept: Gutter[] = [];
  for (const g of gutters) {
    if (kept.some((k) => Math.abs(k.center - g.center) < 0.1 * extent)) continue;
    kept.push(g);
  }
  return kept.sort((a, b) => a.center - b.center);
}

/**
 * Which rows are read across the whole width: those crossing a gutter, plus stretches of rows
 * that do not cross it but whose pieces are too short to be column text (a table or a figure's
 * labels spanning both columns, whose own gaps happen to line up with the gutter).
 */
export function fullWidthRows(rows: Row[], cuts: number[], gutters: Gutter[]): boolean[] {
  const full = rows.map((r) => cuts.some((c) => crosses(r, c)));
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
    // Most of the page beside a clean gutter is columns whatever it holds (code, tables).
    let columnar = j - i >= 0.6 * rows.length;
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

/**
 * Page layout: runs -> rows -> regions (full width, columns, margin notes) in reading order.
 *
 * Column detection looks for a gutter: a vertical band that (almost) no row of text crosses, with
 * enough text on both sides. Rows that do cross it (a title, an abstract, a full-width float) split
 * the page into horizontal sections; inside a columnar section the columns are read one after the
 * other, so text above the columns comes first and text below them last.
 */
import { buildLine } from './lines.js';
import { findGutters, fullWidthRows } from './gutters.js';
import { marginNotes } from './margin-notes.js';
import type { Line, Region, Run } from './model.js';
import { groupRows, type Row } from './rows.js';

export interface PageRegions {
  regions: Region[];
  /** Centres of gutters this page shows on its own: priors for the pages after it. */
  gutters: number[];
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

/**
 * Lays out one page's runs into regions in reading order. `priors` are gutter centres found on
 * earlier pages of the document.
 */
export function layoutPage(runs: Run[], priors: readonly number[] = []): PageRegions {
  const rows = groupRows(runs);
  const gutters = findGutters(rows, priors);
  const strong = gutters.filter((g) => g.strong).map((g) => g.center);
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
    return { regions, gutters: strong };
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
    cols.forEach((colRuns) => {
      // Rows are regrouped per column: page-wide rows can pair a superscript of one column with
      // a line of the other whose baseline happens to be close.
      const lines = rowsToLines(groupRows(colRuns).map((r) => r.runs));
      if (lines.length === 0) return;
      const [x0, x1] = extentOf(lines);
      regions.push({ kind: 'column', section: colSection, x0, x1, lines });
    });
  }
  return { regions, gutters: strong };
}

/**
 * Rows: the runs of a page (or of one column) that share a baseline, with their horizontal extent.
 */
import type { Run } from './model.js';

export interface Row {
  runs: Run[];
  y: number;
  size: number;
  /** Run extents merged across word gaps, sorted by x. */
  spans: Array<[number, number]>;
}

/** Groups runs whose baselines are within half a font size; sub/superscripts join their line. */
export function groupRows(runs: Run[]): Row[] {
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

export function crosses(row: Row, x: number): boolean {
  return row.spans.some(([a, b]) => a < x - 1 && b > x + 1);
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

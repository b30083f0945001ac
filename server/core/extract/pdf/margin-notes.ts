/**
 * Marginal notes of single-column pages (\marginpar, side labels in package documentation).
 */
import type { Run } from './model.js';
import type { Row } from './rows.js';

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

const MARKER_ONLY_RE = /^[\s([]*(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)\]]?\s*$|^\W{0,2}$/i;

/**
 * Marginal notes of a single-column page (\marginpar, side labels): text entirely outside the
 * body's edge (the most common line start / end), with no row bridging the edge. Returns each
 * row's note runs, or null when the page has none.
 */
export function marginNotes(rows: Row[]): Array<{ row: Row; notes: Run[] }> | null {
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
    // The first and last rows are where running heads and feet stick out; they are not notes.
    for (const row of rows.slice(1, -1)) {
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

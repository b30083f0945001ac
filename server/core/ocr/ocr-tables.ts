/**
 * Tables in OCR output: three or more consecutive lines that break into cells at wide gaps, with the cells
 * lining up in columns. Columns are the vertical bands no cell covers (the PDF extractor's idea), which works
 * for left-, right- and centre-aligned columns alike.
 */
import type { TableGrid } from '../extract/types.js';
import { joinWords, lineCells, type OcrLine, type OcrWord } from './ocr-lines.js';

export interface OcrTableHit {
  first: number;
  last: number;
  grid: TableGrid;
}

const MIN_ROWS = 3;
const NUMERIC = /^[-+−(]?[$€£%]?\d[\d.,]*%?\)?$/;

interface Cell {
  x0: number;
  x1: number;
  text: string;
}

function cellsOf(line: OcrLine): Cell[] {
  return lineCells(line).map((ws: OcrWord[]) => ({
    x0: ws[0]?.x0 ?? 0,
    x1: ws[ws.length - 1]?.x1 ?? 0,
    text: joinWords(ws.map((w) => w.text)),
  }));
}

/** Gutters: bands at least half a text size wide that no cell of the rows covers. */
function gutters(rows: Cell[][], size: number): Array<[number, number]> {
  const xs = rows.flat();
  const left = Math.min(...xs.map((c) => c.x0));
  const right = Math.max(...xs.map((c) => c.x1));
  const n = Math.ceil(right - left) + 1;
  if (!(n > 1)) return [];
  const count = new Int32Array(n);
  for (const c of xs) for (let i = Math.floor(c.x0 - left); i <= Math.ceil(c.x1 - left) && i < n; i++) count[i]! += 1;
  const cuts: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= n; i++) {
    const open = i < n && count[i] === 0;
    if (open && start < 0) start = i;
    if (!open && start >= 0) {
      if (i - start >= 0.5 * size) cuts.push([left + start, left + i]);
      start = -1;
    }
  }
  return cuts;
}

function tryTable(lines: readonly OcrLine[], first: number, last: number): OcrTableHit | null {
  const window = lines.slice(first, last + 1);
  const cells = window.map(cellsOf);
  if (cells.filter((c) => c.length >= 2).length < MIN_ROWS) return null;
  const size = window.reduce((s, l) => s + l.size, 0) / window.length;
  const cuts = gutters(cells, size);
  if (cuts.length === 0) return null;
  const rows = cells.map((cs) => {
    const row = new Array<string>(cuts.length + 1).fill('');
    for (const c of cs) {
      let col = 0;
      while (col < cuts.length && c.x0 >= (cuts[col]?.[0] ?? Infinity)) col++;
      row[col] = row[col] ? `${row[col]} ${c.text}` : c.text;
    }
    return row;
  });
  const filled = rows.filter((r) => r.filter(Boolean).length >= 2).length;
  if (filled < MIN_ROWS) return null;
  const all = rows.flat().filter(Boolean);
  // Long cells are prose beside a label (or two text columns), not a table.
  if (all.reduce((s, c) => s + c.length, 0) / all.length > 32) return null;
  // Markers in the first column and text in the second: a list, not a table.
  if (rows[0]?.length === 2 && rows.every((r) => !r[0] || /^(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)]?$|^\W$/i.test(r[0])))
    return null;
  const textOnly = (r: string[]): boolean => r.some(Boolean) && r.every((c) => !c || !NUMERIC.test(c));
  const bodyNumbers = rows.slice(1).some((r) => r.some((c) => NUMERIC.test(c)));
  const header_rows = rows[0] && textOnly(rows[0]) && bodyNumbers ? 1 : 0;
  return { first, last, grid: { rows, header_rows } };
}

/**
 * Table runs in reading order. A run starts at a multi-cell line and continues through multi-cell lines and
 * single short lines (a row with one filled cell, a spanning head) while the spacing stays table-like.
 */
export function findOcrTables(lines: readonly OcrLine[]): OcrTableHit[] {
  const hits: OcrTableHit[] = [];
  const count = lines.map((l) => lineCells(l).length);
  let i = 0;
  while (i < lines.length) {
    if ((count[i] ?? 0) < 2) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length) {
      const cur = lines[j] as OcrLine;
      const next = lines[j + 1] as OcrLine;
      const close = next.y0 - cur.y1 < 1.6 * Math.max(cur.size, next.size) && next.y0 > cur.y0;
      const fits = (count[j + 1] ?? 0) >= 2 || (next.text.length <= 30 && (count[j + 2] ?? 0) >= 2);
      if (!close || !fits) break;
      j++;
    }
    const hit = j - i + 1 >= MIN_ROWS ? tryTable(lines, i, j) : null;
    if (hit) {
      hits.push(hit);
      i = j + 1;
    } else {
      i++;
    }
  }
  return hits;
}

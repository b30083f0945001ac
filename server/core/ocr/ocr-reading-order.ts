/**
 * Tesseract orders its blocks by its own page segmentation, which puts short blocks of a row (a slide's
 * navigation bar, a running head split in three) in an order of its own: on the beamer fixture "Summary"
 * came first although it is the rightmost entry of the top row. Here a single-line block is moved forward to
 * stand right after the last later line that shares its row and lies wholly to its left. Lines only move
 * forward and only past lines on their own row, so two text columns (left column first, as tesseract reads
 * them) are never interleaved.
 */
import type { OcrLine } from './ocr-lines.js';

function sameRow(a: OcrLine, b: OcrLine): boolean {
  const overlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return overlap > 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
}

export function putRowsInOrder(lines: readonly OcrLine[]): OcrLine[] {
  const perBlock = new Map<number, number>();
  for (const l of lines) perBlock.set(l.block, (perBlock.get(l.block) ?? 0) + 1);
  const out = [...lines];
  // Walk from the end so a moved line is never visited twice.
  for (let i = out.length - 1; i >= 0; i--) {
    const line = out[i] as OcrLine;
    if (perBlock.get(line.block) !== 1) continue;
    let anchor = -1;
    for (let j = i + 1; j < out.length; j++) {
      const other = out[j] as OcrLine;
      if (other.block !== line.block && sameRow(other, line) && other.x0 < line.x0) anchor = j;
    }
    if (anchor < 0) continue;
    // Past the anchor, also past lines already moved there that lie further left on the row.
    let at = anchor + 1;
    while (at < out.length && sameRow(out[at] as OcrLine, line) && (out[at] as OcrLine).x0 < line.x0) at++;
    out.splice(at, 0, line);
    out.splice(i, 1);
  }
  return out;
}

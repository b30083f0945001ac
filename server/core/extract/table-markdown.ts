/**
 * A table block's text: its grid as a GitHub-flavoured Markdown table, written by the PDF and OCR
 * extractors and by the review desk's grid editor, and read back by that editor. Pure (no Node API), so
 * the renderer bundles the very same writer the server uses.
 */
import type { TableGrid } from './types.js';

function escapeCell(cell: string): string {
  return cell.replace(/\\/g, '\\\\').replace(/\|/g, '\\|');
}

/** GitHub-flavoured Markdown; several head rows merge into the one head row Markdown allows. */
export function tableMarkdown(grid: TableGrid): string {
  const ncols = grid.rows[0]?.length ?? 0;
  const head: string[] = new Array<string>(ncols).fill('');
  for (const row of grid.rows.slice(0, grid.header_rows)) {
    row.forEach((c, i) => {
      if (c) head[i] = head[i] ? `${head[i]} ${c}` : c;
    });
  }
  const line = (cells: string[]): string => `| ${cells.map(escapeCell).join(' | ')} |`.replace(/ {2,}\|/g, ' |');
  const out = [line(head), `| ${new Array<string>(ncols).fill('---').join(' | ')} |`];
  for (const row of grid.rows.slice(grid.header_rows)) out.push(line(row));
  return out.join('\n');
}

/** The cells of one `| a | b |` line: split at pipes not escaped, `\|` and `\\` read back. */
function cellsOf(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)((?:\\\\)*)\|$/, '$1');
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\' && (inner[i + 1] === '\\' || inner[i + 1] === '|')) {
      cell += inner[i + 1];
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

const SEPARATOR = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;

/**
 * Reads a Markdown table back into a grid: one head row (header_rows 0 when it is empty, the placeholder
 * the writer puts above a table without a head), rows padded to the widest. Null when the text is not a
 * single Markdown table, so a reviewer's free text is never forced into cells.
 */
export function parseTableMarkdown(text: string): TableGrid | null {
  const lines = text.trim().split(/\r?\n/);
  if (lines.length < 2 || !lines.every((l) => l.trim().startsWith('|'))) return null;
  if (!SEPARATOR.test((lines[1] ?? '').trim())) return null;
  const head = cellsOf(lines[0] ?? '');
  const body = lines.slice(2).map(cellsOf);
  const width = Math.max(head.length, ...body.map((r) => r.length));
  const pad = (r: string[]) => [...r, ...new Array<string>(width - r.length).fill('')];
  const hasHead = head.some((c) => c !== '');
  return { rows: hasHead ? [pad(head), ...body.map(pad)] : body.map(pad), header_rows: hasHead ? 1 : 0 };
}

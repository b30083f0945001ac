/**
 * Shared pieces of the flow-format extractors (DOCX, HTML, Markdown, plain text). Flow formats have
 * no page geometry, so every block lands on page 1 with a null bbox; building blocks and results in
 * one place keeps the four extractors from drifting apart in those details.
 */
import type { DocumentFormat, ExtractedBlock, ExtractionResult, TableGrid } from '../types.js';

export type BlockExtras = Pick<ExtractedBlock, 'heading_level' | 'indent_level' | 'table' | 'language'>;

export function makeBlock(type: ExtractedBlock['type'], text: string, extras: BlockExtras = {}): ExtractedBlock {
  const block: ExtractedBlock = { type, text, page: 1, bbox: null };
  // Only copy the extras that are set: the result crosses a structured-clone boundary and is
  // compared in tests, so absent fields should stay absent instead of becoming `undefined`.
  if (extras.heading_level !== undefined) block.heading_level = extras.heading_level;
  if (extras.indent_level !== undefined) block.indent_level = extras.indent_level;
  if (extras.table !== undefined) block.table = extras.table;
  if (extras.language !== undefined && extras.language !== '') block.language = extras.language;
  return block;
}

export function makeFlowResult(
  format: DocumentFormat,
  blocks: ExtractedBlock[],
  title: string | undefined,
  warnings: string[],
): ExtractionResult {
  const result: ExtractionResult = {
    format,
    total_pages: 1,
    pages: [{ page: 1, width: 0, height: 0, needs_ocr: false }],
    blocks,
    warnings: [...new Set(warnings)],
  };
  if (title !== undefined && title !== '') result.title = title;
  return result;
}

/** Title fallback shared by all flow formats: the first level-1 heading. */
export function firstH1(blocks: readonly ExtractedBlock[]): string | undefined {
  return blocks.find((b) => b.type === 'heading' && b.heading_level === 1)?.text;
}

/**
 * Collapses runs of whitespace like an HTML renderer does, but keeps explicit line breaks ("\n",
 * e.g. from <br>) because they carry meaning in addresses, poems and table-less layouts.
 * NBSP becomes a plain space so search and chunking do not see two different spaces.
 */
export function collapseWhitespace(text: string): string {
  return text
    .replace(/\u00ad/g, '') // soft hyphens are invisible unless a line breaks there
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Collapses everything, line breaks included: for table cells, captions and other one-liners. */
export function oneLine(text: string): string {
  return text
    .replace(/\u00ad/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Makes a grid rectangular by padding short rows with empty cells. */
export function rectangular(rows: string[][]): string[][] {
  const width = rows.reduce((max, row) => Math.max(max, row.length), 0);
  return rows.map((row) => (row.length < width ? [...row, ...new Array<string>(width - row.length).fill('')] : row));
}

function markdownCell(text: string): string {
  // A Markdown cell is a single line; a literal pipe would end the cell, so it is escaped.
  return oneLine(text).replace(/\|/g, '\\|');
}

function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map(markdownCell).join(' | ')} |`;
}

/**
 * Renders a grid as a GFM table. The `| --- |` separator goes after the last header row. A grid
 * without header rows gets an empty header row first (as pandoc does) so the text stays a valid
 * GFM table instead of promoting a data row to a header.
 */
export function markdownTable(grid: TableGrid): string {
  const rows = grid.rows;
  const width = rows[0]?.length ?? 0;
  if (width === 0) return '';
  const separator = `| ${new Array<string>(width).fill('---').join(' | ')} |`;
  const lines: string[] = [];
  if (grid.header_rows === 0) lines.push(markdownRow(new Array<string>(width).fill('')), separator);
  rows.forEach((row, i) => {
    lines.push(markdownRow(row));
    if (i + 1 === grid.header_rows) lines.push(separator);
  });
  return lines.join('\n');
}

/** Builds the table block from a (possibly ragged) grid; null when the table has no cells at all. */
export function tableBlock(rows: string[][], headerRows: number): ExtractedBlock | null {
  const grid: TableGrid = { rows: rectangular(rows), header_rows: Math.min(headerRows, rows.length) };
  if (grid.rows.length === 0 || (grid.rows[0]?.length ?? 0) === 0) return null;
  return makeBlock('table', markdownTable(grid), { table: grid });
}

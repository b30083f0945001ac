/**
 * Rows of a spreadsheet or CSV -> one table block: empty rows and columns dropped, the first row kept as
 * the header when it reads as one, each column's type inferred. Every row and cell is counted against the
 * document's limits as it is read (`SheetBudget`), so a million-row CSV fails at the first row past the
 * limit, and a sheet whose few values span a huge grid (each row's value in a column of its own) before
 * its grid is built, instead of filling the worker's heap.
 */
import { makeBlock, markdownTable } from '../flow/result.js';
import { limitError, type DocumentLimits } from '../limits.js';
import type { ColumnType, ExtractedBlock, TableGrid } from '../types.js';

/** What a cell holds, as its reader could tell (XLSX says it; CSV cells are inferred from their text). */
export type CellKind = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface Cell {
  text: string;
  kind: CellKind;
}

/** One row as read: its cells by 0-based column, in any order. */
export type SparseRow = Array<[column: number, cell: Cell]>;

/** The rows and cells of one document, counted against `maxSheetRows` / `maxSheetCells`. */
export class SheetBudget {
  private rows = 0;
  private cells = 0;

  constructor(private readonly limits: Pick<DocumentLimits, 'maxSheetRows' | 'maxSheetCells'>) {}

  /** A row with at least one value was read (empty rows are free: they are dropped). */
  row(): void {
    if (++this.rows > this.limits.maxSheetRows) {
      throw limitError(
        'TOO_MANY_ROWS',
        `the document has more than ${this.limits.maxSheetRows} rows (setting max_sheet_rows)`,
      );
    }
  }

  /** Throws TOO_MANY_CELLS now if `n` more cells would cross the limit: before a reader builds a huge row. */
  ensureRoom(n: number): void {
    if (this.cells + n > this.limits.maxSheetCells) this.take(n);
  }

  /** `n` more cells go into a grid (its empty cells count too: the grid holds them). */
  take(n: number): void {
    this.cells += n;
    if (this.cells > this.limits.maxSheetCells) {
      throw limitError(
        'TOO_MANY_CELLS',
        `the document's tables have more than ${this.limits.maxSheetCells} cells (setting max_sheet_cells)`,
      );
    }
  }
}

const KINDS: readonly CellKind[] = ['string', 'integer', 'number', 'boolean', 'date'];
const bit = (kind: CellKind): number => 1 << KINDS.indexOf(kind);

/** A row as kept: its values' texts, and their columns (null when they are columns 0, 1, 2...). */
interface KeptRow {
  columns: number[] | null;
  texts: string[];
}

/**
 * Builds the grid of one sheet from its rows, as they are read. Rows are kept as bare texts (a cell's kind
 * only adds to its column's bitmask), because a sheet near the limits holds millions of them.
 */
export class SheetRows {
  private readonly rows: KeptRow[] = [];
  /** Per column: the kinds of the first row's value, and of the values below it. */
  private readonly firstKinds = new Map<number, number>();
  private readonly restKinds = new Map<number, number>();
  private firstAllText = true;
  private valuesRead = 0;

  constructor(private readonly budget: SheetBudget) {}

  /** Refuses a row of `cells` values before it is built (a row of millions of cells is no row). */
  ensureRoom(cells: number): void {
    this.budget.ensureRoom(cells);
  }

  add(row: SparseRow): void {
    const filled = row.filter(([, c]) => c.text.trim() !== '');
    if (filled.length === 0) return;
    this.budget.row();
    // Values count as they arrive, so a long row cannot grow past the limit before the grid is built.
    this.valuesRead += filled.length;
    this.budget.take(filled.length);
    const first = this.rows.length === 0;
    const kinds = first ? this.firstKinds : this.restKinds;
    let dense = true;
    filled.forEach(([column, cell], i) => {
      kinds.set(column, (kinds.get(column) ?? 0) | bit(cell.kind));
      if (column !== i) dense = false;
      if (first && cell.kind !== 'string') this.firstAllText = false;
    });
    this.rows.push({ columns: dense ? null : filled.map(([c]) => c), texts: filled.map(([, c]) => c.text) });
  }

  /** The table block, or null for a sheet without a value. */
  block(): ExtractedBlock | null {
    if (this.rows.length === 0) return null;
    const used = [...new Set([...this.firstKinds.keys(), ...this.restKinds.keys()])].sort((a, b) => a - b);
    const columnOf = new Map(used.map((c, i) => [c, i]));
    // The values were charged as read; the empty cells the grid adds are charged now, before it exists.
    this.budget.take(this.rows.length * used.length - this.valuesRead);
    // A first row of text over other rows is a header (a row of numbers or dates is data).
    const headerRows = this.rows.length > 1 && this.firstAllText ? 1 : 0;
    const grid: TableGrid = {
      rows: this.rows.map(({ columns, texts }) => {
        const out = new Array<string>(used.length).fill('');
        texts.forEach((text, i) => (out[columnOf.get(columns ? (columns[i] ?? 0) : i) ?? 0] = text));
        return out;
      }),
      header_rows: headerRows,
      column_types: used.map((c) =>
        columnType((this.restKinds.get(c) ?? 0) | (headerRows ? 0 : (this.firstKinds.get(c) ?? 0))),
      ),
    };
    this.rows.length = 0;
    return makeBlock('table', markdownTable(grid), { table: grid });
  }
}

function columnType(kinds: number): ColumnType {
  if (kinds === 0) return 'empty';
  const only = KINDS.find((k) => bit(k) === kinds);
  if (only) return only;
  if ((kinds & ~(bit('integer') | bit('number'))) === 0) return 'number';
  return 'string';
}

const INTEGER = /^[-+]?(?:0|[1-9]\d*)$/;
const NUMBER = /^[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?$/;
/** A decimal comma, as CSV files written with `;` between fields have it. */
const COMMA_NUMBER = /^[-+]?\d+,\d+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The kind of a cell known only by its text (CSV). Numbers with leading zeros ("007", postcodes) stay text,
 * as a number would lose them; dates are ISO 8601 only (10/11/12 means different days in different places).
 */
export function inferKind(text: string, decimalComma: boolean): CellKind {
  const t = text.trim();
  if (INTEGER.test(t)) return 'integer';
  if (NUMBER.test(t) && !/^[-+]?0\d/.test(t)) return 'number';
  if (decimalComma && COMMA_NUMBER.test(t) && !/^[-+]?0\d/.test(t)) return 'number';
  if (/^(?:true|false)$/i.test(t)) return 'boolean';
  if (ISO_DATE.test(t) && !Number.isNaN(Date.parse(t.replace(' ', 'T')))) return 'date';
  return 'string';
}

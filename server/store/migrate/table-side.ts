/**
 * One end of a copy: the rows of the mirrored tables in one database, read a page at a time in primary-key
 * order and written a batch at a time, each batch in a transaction of its own (an interrupted copy leaves
 * whole batches, and a second run finds them present and goes on).
 */
import { and, eq, gt, inArray, or, type Column, type SQL } from 'drizzle-orm';
import type { MirroredTable } from './tables.js';

export type Row = Record<string, unknown>;

/** Only the rows whose `column` holds `value` (the vectors of one collection). */
export interface RowFilter {
  column: string;
  value: unknown;
}

export interface TableSide {
  readonly kind: 'sqlite' | 'postgres';
  /** Up to `limit` rows after the row whose key is `after` (null: from the first), in primary-key order. */
  page(t: MirroredTable, after: Row | null, limit: number, filter?: RowFilter): Promise<Row[]>;
  /** The rows with the primary keys of these rows (those present). */
  byKeys(t: MirroredTable, keys: readonly Row[]): Promise<Row[]>;
  /** Writes, in one transaction, the rows whose primary key is not present yet; says how many it wrote. */
  insertNew(t: MirroredTable, rows: readonly Row[]): Promise<number>;
  /** After a table's copy: brings along what the database keeps beside the rows (counters of identity columns). */
  finish(t: MirroredTable): Promise<void>;
}

const column = (cols: Record<string, Column>, name: string): Column => {
  const c = cols[name];
  if (!c) throw new Error(`no column ${name}`);
  return c;
};

/** `key > after` over a composite key: (k1 > v1) OR (k1 = v1 AND k2 > v2) … */
export function afterKey(cols: Record<string, Column>, key: readonly string[], after: Row): SQL | undefined {
  return or(...key.map((k, i) => and(...key.slice(0, i).map((p) => eq(column(cols, p), after[p])), gt(column(cols, k), after[k]))));
}

/** Rows whose primary key is one of these rows'. */
export function keysIn(cols: Record<string, Column>, key: readonly string[], rows: readonly Row[]): SQL | undefined {
  const [only] = key;
  if (key.length === 1 && only) return inArray(column(cols, only), rows.map((r) => r[only]));
  return or(...rows.map((r) => and(...key.map((k) => eq(column(cols, k), r[k])))));
}

export const where = (cols: Record<string, Column>, key: readonly string[], after: Row | null, filter?: RowFilter): SQL | undefined =>
  and(after ? afterKey(cols, key, after) : undefined, filter ? eq(column(cols, filter.column), filter.value) : undefined);

export const keyColumns = (cols: Record<string, Column>, key: readonly string[]): Column[] => key.map((k) => column(cols, k));

/**
 * One end of a copy: the rows of the mirrored tables in one database, read a page at a time in primary-key
 * order and written a batch at a time, each batch in a transaction of its own (an interrupted copy leaves
 * whole batches, and a second run finds them present and goes on).
 */
import { and, eq, gt, inArray, sql, type Column, type SQL } from 'drizzle-orm';
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

const tuple = (parts: SQL[]): SQL => sql`(${sql.join(parts, sql`, `)})`;

/**
 * `key > after`, a composite key compared as a row value (SQLite 3.15+ and PostgreSQL), which both walk
 * along the primary key's index: each page starts where the last ended instead of scanning up to it.
 */
export function afterKey(cols: Record<string, Column>, key: readonly string[], after: Row): SQL {
  const [only] = key;
  if (key.length === 1 && only) return gt(column(cols, only), after[only]);
  return sql`${tuple(key.map((k) => sql`${column(cols, k)}`))} > ${tuple(key.map((k) => sql`${after[k]}`))}`;
}

/** Rows whose primary key is one of these rows' (a composite key as row values: no OR chain deeper than SQLite parses). */
export function keysIn(cols: Record<string, Column>, key: readonly string[], rows: readonly Row[]): SQL {
  const [only] = key;
  if (key.length === 1 && only)
    return inArray(
      column(cols, only),
      rows.map((r) => r[only]),
    );
  return sql`${tuple(key.map((k) => sql`${column(cols, k)}`))} IN (${sql.join(
    rows.map((r) => tuple(key.map((k) => sql`${r[k]}`))),
    sql`, `,
  )})`;
}

export const where = (
  cols: Record<string, Column>,
  key: readonly string[],
  after: Row | null,
  filter?: RowFilter,
): SQL | undefined =>
  and(
    after ? afterKey(cols, key, after) : undefined,
    filter ? eq(column(cols, filter.column), filter.value) : undefined,
  );

export const keyColumns = (cols: Record<string, Column>, key: readonly string[]): Column[] =>
  key.map((k) => column(cols, k));

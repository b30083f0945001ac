/**
 * A table as either backend's schema declares it. The PostgreSQL schema mirrors the SQLite one column for
 * column under the same property names (drizzle/pg/schema.ts), and drizzle-orm's operators and `sql` build
 * the same SQL on both, so a condition or a column selection both backends use is written once over this.
 */
import type * as pg from '../../../drizzle/pg/schema.js';
import type * as lite from '../../../drizzle/schema.js';

export type EitherTable<K extends keyof typeof lite & keyof typeof pg> = (typeof lite)[K] | (typeof pg)[K];

/**
 * The table's columns under a record's field names (`{ job_id: 'jobId' }`), each keeping its column type, so
 * that a select over either dialect's table answers the record as it is.
 */
export function columnsAs<T, const M extends Record<string, keyof T>>(table: T, names: M): { [F in keyof M]: T[M[F]] } {
  return Object.fromEntries(Object.entries(names).map(([field, column]) => [field, table[column]])) as {
    [F in keyof M]: T[M[F]];
  };
}

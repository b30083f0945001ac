/**
 * A checksum of a table's rows that reads the same from SQLite and PostgreSQL. Each row is written in one
 * canonical form (columns by name, JSON with its keys sorted, ISO timestamps as `toISOString` gives them,
 * booleans as booleans, absent as null) and hashed with sha256; the table's checksum is the sum of its rows'
 * hashes modulo 2^256. A sum does not depend on the order rows are read in, so each side reads in its own
 * primary-key index order (PostgreSQL's collation sorts text unlike SQLite's byte order) and a batch adds
 * its rows as it goes, never holding the table.
 */
import { createHash } from 'node:crypto';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const MOD = 1n << 256n;

function canonical(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string')
    return ISO.test(value) && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : value;
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** The canonical text of a row over these columns. */
export const canonicalRow = (row: Record<string, unknown>, columns: readonly string[]): string =>
  JSON.stringify(columns.map((c) => canonical(row[c])));

export interface TableChecksum {
  add(rows: readonly Record<string, unknown>[]): void;
  readonly rows: number;
  /** 64 hex digits. */
  hex(): string;
}

export function tableChecksum(columns: readonly string[]): TableChecksum {
  let sum = 0n;
  let rows = 0;
  return {
    add(batch) {
      for (const row of batch) {
        sum = (sum + BigInt(`0x${createHash('sha256').update(canonicalRow(row, columns)).digest('hex')}`)) % MOD;
        rows++;
      }
    },
    get rows() {
      return rows;
    },
    hex: () => sum.toString(16).padStart(64, '0'),
  };
}

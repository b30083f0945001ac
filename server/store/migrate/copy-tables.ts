import { tableChecksum } from './canonical.js';
import type { Row, TableSide } from './table-side.js';
import { batchRows, columnNames, type MirroredTable } from './tables.js';

export interface TableReport {
  table: string;
  /** Rows written to the target. */
  copied: number;
  /** Rows whose primary key the target had already (left as they are). */
  skipped: number;
  /** The checksum (canonical.ts) of the source's rows and of the target's rows with the same keys. */
  source: { rows: number; checksum: string };
  target: { rows: number; checksum: string };
}

/** Unique violations in PostgreSQL and SQLite (drizzle may wrap the driver's error as its `cause`). */
const CLASHES = new Set(['23505', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

/** The failure of a batch, named by its table; a clash with other rows of the target, said as such. */
function explain(t: MirroredTable, err: unknown): Error {
  const e = err as Error & { code?: string; cause?: Error & { code?: string } };
  const why = e.cause?.message ?? e.message;
  if (CLASHES.has(e.cause?.code ?? e.code ?? '')) {
    // A unique index other than the primary key (a key's name, a revision's seq) holds a row of another library.
    return Object.assign(new Error(`table ${t.name}: ${why}`), {
      code: 'MIGRATE_CONFLICT',
      hint: 'the target holds rows of another library that clash with these; migrate into a new database or data folder',
    });
  }
  return Object.assign(new Error(`table ${t.name}: ${why}`), { code: e.cause?.code ?? e.code ?? 'INTERNAL' });
}

const keyOf = (row: Row, key: readonly string[]): Row => Object.fromEntries(key.map((k) => [k, row[k]]));

/**
 * Copies one table a batch at a time: a page of the source in key order, the rows the target lacks written
 * in one transaction, then the target's rows of those keys read back for the checksum. Memory holds one
 * batch, whatever the table's size.
 */
export async function copyTable(t: MirroredTable, from: TableSide, to: TableSide): Promise<TableReport> {
  const columns = columnNames(t);
  const limit = batchRows(t);
  const source = tableChecksum(columns);
  const target = tableChecksum(columns);
  let copied = 0;
  let after: Row | null = null;
  for (;;) {
    const rows = await from.page(t, after, limit);
    const last = rows.at(-1);
    if (!last) break;
    try {
      copied += await to.insertNew(t, rows);
    } catch (err) {
      throw explain(t, err);
    }
    source.add(rows);
    target.add(await to.byKeys(t, rows));
    after = keyOf(last, t.key);
  }
  await to.finish(t);
  return {
    table: t.name,
    copied,
    skipped: source.rows - copied,
    source: { rows: source.rows, checksum: source.hex() },
    target: { rows: target.rows, checksum: target.hex() },
  };
}

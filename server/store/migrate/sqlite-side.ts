import { asc, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { columnsOf } from './tables.js';
import { keyColumns, keysIn, where, type Row, type TableSide } from './table-side.js';

/**
 * A desktop data folder's SQLite as one end of a copy. Its identity columns need nothing after a copy:
 * chunk_vectors' AUTOINCREMENT counter follows the largest id written, and revisions take MAX(seq) + 1.
 */
export function sqliteSide(db: Db): TableSide {
  return {
    kind: 'sqlite',
    async page(t, after, limit, filter) {
      const cols = columnsOf(t.sqlite);
      return db
        .select()
        .from(t.sqlite)
        .where(where(cols, t.key, after, filter))
        .orderBy(...keyColumns(cols, t.key).map((c) => asc(c)))
        .limit(limit)
        .all() as Row[];
    },
    async byKeys(t, keys) {
      if (keys.length === 0) return [];
      return db
        .select()
        .from(t.sqlite)
        .where(keysIn(columnsOf(t.sqlite), t.key, keys))
        .all() as Row[];
    },
    async insertNew(t, rows) {
      if (rows.length === 0) return 0;
      const cols = columnsOf(t.sqlite);
      const [first] = keyColumns(cols, t.key);
      return db.transaction(
        (tx) =>
          tx
            .insert(t.sqlite)
            // The rows were read through the mirrored table, so they have its columns and types.
            .values(rows as never)
            .onConflictDoNothing({ target: keyColumns(cols, t.key) as never })
            .returning({ k: sql`${first}` })
            .all().length,
      );
    },
    finish: async () => undefined,
  };
}

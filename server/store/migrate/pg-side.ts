import { asc, sql } from 'drizzle-orm';
import type { PgDb } from '../postgres/connection.js';
import { indexTexts } from '../postgres/collection-tables.js';
import { columnsOf } from './tables.js';
import { keyColumns, keysIn, where, type Row, type TableSide } from './table-side.js';

/** Identity columns given their values by the copy: their counters must move past them, or the next insert collides. */
const IDENTITIES: Record<string, string> = { revisions: 'seq', chunk_vectors: 'id' };

/**
 * The team server's PostgreSQL as one end of a copy. chunk_vectors rows are written with their full-text
 * rows (the tsvector table of their collection), in the same transaction, as the store's embed does.
 */
export function pgSide(db: PgDb): TableSide {
  return {
    kind: 'postgres',
    async page(t, after, limit, filter) {
      const cols = columnsOf(t.pg);
      return (await db
        .select()
        .from(t.pg)
        .where(where(cols, t.key, after, filter))
        .orderBy(...keyColumns(cols, t.key).map((c) => asc(c)))
        .limit(limit)) as Row[];
    },
    async byKeys(t, keys) {
      if (keys.length === 0) return [];
      return (await db
        .select()
        .from(t.pg)
        .where(keysIn(columnsOf(t.pg), t.key, keys))) as Row[];
    },
    insertNew: async (t, rows) => {
      if (rows.length === 0) return 0;
      const cols = columnsOf(t.pg);
      const [first] = keyColumns(cols, t.key);
      return db.transaction(async (tx) => {
        const written = await tx
          .insert(t.pg)
          // The rows were read through the mirrored table, so they have its columns and types.
          .values(rows as never)
          .onConflictDoNothing({ target: keyColumns(cols, t.key) as never })
          .returning({
            k: sql<unknown>`${first}`,
            collection: sql<unknown>`${t.name === 'chunk_vectors' ? cols.collection : first}`,
          });
        if (t.name === 'chunk_vectors') {
          const byCollection = new Map<string, number[]>();
          for (const r of written)
            byCollection.set(String(r.collection), [...(byCollection.get(String(r.collection)) ?? []), Number(r.k)]);
          for (const [name, ids] of byCollection) await indexTexts(tx, name, ids);
        }
        return written.length;
      });
    },
    async finish(t) {
      const col = IDENTITIES[t.name];
      if (!col) return;
      await db.execute(sql`
        SELECT setval(pg_get_serial_sequence(${t.name}, ${col}), m)
        FROM (SELECT max(${sql.identifier(col)}) AS m FROM ${sql.identifier(t.name)}) x WHERE m IS NOT NULL`);
    },
  };
}

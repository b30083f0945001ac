import { count, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DbLike } from './db.js';

export interface Paging {
  skip: number;
  limit: number;
}

/** One page of a table's rows matching `where`, with the total count every list answer carries. */
export function paginate<T extends SQLiteTable, V>(
  db: DbLike,
  table: T,
  where: SQL | undefined,
  orderBy: (SQLiteColumn | SQL)[],
  { skip, limit }: Paging,
  view: (row: T['$inferSelect']) => V,
) {
  const total =
    db
      .select({ n: count() })
      .from(table as SQLiteTable)
      .where(where)
      .get()?.n ?? 0;
  const rows = db
    .select()
    .from(table as SQLiteTable)
    .where(where)
    .orderBy(...orderBy)
    .limit(limit)
    .offset(skip)
    .all() as T['$inferSelect'][];
  return { items: rows.map(view), total, skip, limit };
}

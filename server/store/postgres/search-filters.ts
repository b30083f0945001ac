import { sql, type SQL } from 'drizzle-orm';
import type { SearchScope } from '../repos/search-index.js';

/** A search's scope as SQL over `c` (chunks) and `cv` (chunk_vectors): the filters of the SQLite store, over jsonb. */
export function scopeSql(scope: SearchScope | undefined): SQL {
  const f = scope?.filters;
  const parts: SQL[] = [];
  if (scope?.job_id) parts.push(sql`cv.job_id = ${scope.job_id}`);
  const types = f?.chunk_type === undefined ? [] : [f.chunk_type].flat();
  if (types.length) parts.push(sql`c.chunk_type = ANY(${sql.param(types)}::text[])`);
  const pages = (test: SQL) =>
    sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.page_numbers) p WHERE p.value::numeric ${test})`;
  if (f?.pages?.length) parts.push(pages(sql`= ANY(${sql.param(f.pages)}::numeric[])`));
  if (f?.page_from !== undefined) parts.push(pages(sql`>= ${f.page_from}`));
  if (f?.page_to !== undefined) parts.push(pages(sql`<= ${f.page_to}`));
  if (f?.section) {
    const pattern = `%${f.section.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(
      sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.section_path) s WHERE s.value ILIKE ${pattern} ESCAPE '\\')`,
    );
  }
  return parts.length ? sql`AND ${sql.join(parts, sql` AND `)}` : sql``;
}

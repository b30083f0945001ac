import { sql, type SQL } from 'drizzle-orm';
import type { SearchScope } from '../repos/search-index.js';

/**
 * A search's scope as SQL over `c` (chunks) and `cv` (chunk_vectors), applied inside the candidate queries
 * so that keyword search is filtered exactly; vector candidates are oversampled, then filtered the same way.
 */
export function scopeSql(scope: SearchScope | undefined): SQL {
  const f = scope?.filters;
  const parts: SQL[] = [];
  if (scope?.job_id) parts.push(sql`cv.job_id = ${scope.job_id}`);
  const types = f?.chunk_type === undefined ? [] : [f.chunk_type].flat();
  if (types.length)
    parts.push(
      sql`c.chunk_type IN (${sql.join(
        types.map((t) => sql`${t}`),
        sql`, `,
      )})`,
    );
  if (f?.pages?.length) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value IN (${sql.join(
        f.pages.map((p) => sql`${p}`),
        sql`, `,
      )}))`,
    );
  }
  if (f?.page_from !== undefined)
    parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value >= ${f.page_from})`);
  if (f?.page_to !== undefined)
    parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value <= ${f.page_to})`);
  if (f?.section) {
    const pattern = `%${f.section.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.section_path) WHERE value LIKE ${pattern} ESCAPE '\\')`);
  }
  return parts.length ? sql`AND ${sql.join(parts, sql` AND `)}` : sql``;
}

/** Whether the scope narrows the collection at all (then a vector search has to look deeper). */
export const narrows = (scope: SearchScope | undefined): boolean =>
  Boolean(scope?.job_id || (scope?.filters && Object.values(scope.filters).some((v) => v !== undefined)));

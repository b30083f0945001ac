import { sql, type SQL } from 'drizzle-orm';

export interface SearchFilters {
  /** One chunk type or several (section, table, list, …). */
  chunk_type?: string | string[];
  /** Chunks on any of these pages. */
  pages?: number[];
  page_from?: number;
  page_to?: number;
  /** Text found (case-insensitively) in any heading of the chunk's section path. */
  section?: string;
}

/**
 * The filters as SQL over `c` (chunks) and `cv` (chunk_vectors), applied inside the candidate queries so
 * that keyword search is filtered exactly; vector candidates are oversampled, then filtered the same way.
 */
export function filterSql(f: SearchFilters | undefined, jobId: string | undefined): SQL {
  const parts: SQL[] = [];
  if (jobId) parts.push(sql`cv.job_id = ${jobId}`);
  const types = f?.chunk_type === undefined ? [] : [f.chunk_type].flat();
  if (types.length) parts.push(sql`c.chunk_type IN (${sql.join(types.map((t) => sql`${t}`), sql`, `)})`);
  if (f?.pages?.length) {
    parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value IN (${sql.join(f.pages.map((p) => sql`${p}`), sql`, `)}))`);
  }
  if (f?.page_from !== undefined) parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value >= ${f.page_from})`);
  if (f?.page_to !== undefined) parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.page_numbers) WHERE value <= ${f.page_to})`);
  if (f?.section) {
    const pattern = `%${f.section.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    parts.push(sql`EXISTS (SELECT 1 FROM json_each(c.section_path) WHERE value LIKE ${pattern} ESCAPE '\\')`);
  }
  return parts.length ? sql`AND ${sql.join(parts, sql` AND `)}` : sql``;
}

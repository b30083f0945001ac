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

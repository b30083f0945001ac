/**
 * Page geometry for GET /jobs/{job_id}/pages: each page's size as shown (the space block boxes are in),
 * the turn it is shown at, and what OCR did on it; and the one-line summary the job carries.
 */
import type { PageSizeSummary } from '../../store/repos/jobs-repo.js';
import type { Paging } from '../../store/repos/paging.js';
import type { Store } from '../../store/store.js';
import type { ExtractedPage } from '../extract/types.js';
import { findJobWithPages } from './paged-job.js';

export type { PageSizeSummary };

/**
 * The most common page size and how many pages have it (the first page's size among equally common
 * ones); null when no page has a size (flow formats report 0 x 0). Computed once when the pages are
 * saved: a GROUP BY over a 100,000-page job's rows costs ~40 ms, too much for a job that is polled.
 */
export function commonPageSize(list: readonly Pick<ExtractedPage, 'width' | 'height'>[]): PageSizeSummary | null {
  // Map order is first appearance, so a tie goes to the size seen on the earliest page.
  const counts = new Map<string, PageSizeSummary>();
  for (const p of list) {
    if (!(p.width > 0 && p.height > 0)) continue;
    const key = `${p.width}x${p.height}`;
    const seen = counts.get(key) ?? { width: p.width, height: p.height, pages: 0 };
    seen.pages++;
    counts.set(key, seen);
  }
  let best: PageSizeSummary | null = null;
  for (const c of counts.values()) if (!best || c.pages > best.pages) best = c;
  return best;
}

export function createPageList({ store }: { store: Store }) {
  return {
    /** The job's pages in order; empty until extraction has read them. */
    async list(jobId: string, paging: Paging) {
      await findJobWithPages(store, jobId);
      return store.pages.list(jobId, paging);
    },
  };
}
export type PageList = ReturnType<typeof createPageList>;

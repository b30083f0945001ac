import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { pages } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { PagesRepo } from '../repos/pages-repo.js';
import { pageView } from '../rows/jobs.js';
import type { TxGate } from './tx-gate.js';

export function sqlitePages(db: Db, gate: TxGate): PagesRepo {
  return {
    list: (jobId, paging) =>
      gate.call(() => paginate(db, pages, eq(pages.jobId, jobId), [asc(pages.page)], paging, pageView)),

    has: (jobId, page) =>
      gate.call(
        () =>
          !!db
            .select({ page: pages.page })
            .from(pages)
            .where(and(eq(pages.jobId, jobId), eq(pages.page, page)))
            .get(),
      ),

    ocrPages: (jobId) =>
      gate.call(() => ({
        needing: db
          .select({ page: pages.page })
          .from(pages)
          .where(and(eq(pages.jobId, jobId), eq(pages.needsOcr, true)))
          .orderBy(pages.page)
          .all()
          .map((p) => p.page),
        read: db
          .select({
            page: pages.page,
            language: pages.ocrLanguage,
            confidence: pages.ocrConfidence,
            rotation: pages.ocrRotation,
          })
          .from(pages)
          .where(and(eq(pages.jobId, jobId), isNotNull(pages.ocrLanguage)))
          .orderBy(pages.page)
          .all()
          .map((p) => ({ ...p, language: p.language ?? '' })),
      })),
  };
}

import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { pages } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../db.js';
import { paginate } from '../paginate.js';
import type { OcrPages, PagesRepo } from '../repos/pages-repo.js';
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

    ocrPages: (jobId) => gate.call(() => readOcrPages(db, jobId)),
  };
}

/** The job's pages that need OCR and those OCRed (also read with the job's status). */
export function readOcrPages(db: DbLike, jobId: string): OcrPages {
  return {
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
  };
}

import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { pages } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { NewPage } from '../repos/jobs-repo.js';
import type { PagesRepo, PageView } from '../repos/pages-repo.js';
import type { TxGate } from './tx-gate.js';

type PageRow = typeof pages.$inferSelect;

const pageView = (row: PageRow): PageView => ({
  page: row.page,
  width: row.width,
  height: row.height,
  rotation: row.rotation,
  needs_ocr: row.needsOcr,
  ocr: row.ocrLanguage === null ? null : { language: row.ocrLanguage, confidence: row.ocrConfidence, rotation: row.ocrRotation },
});

/** A measured page's row: every row sets the same columns (insert-many.ts). */
export const newPageRow = (jobId: string, p: NewPage): typeof pages.$inferInsert => ({
  jobId,
  page: p.page,
  width: p.width,
  height: p.height,
  rotation: p.rotation,
  needsOcr: p.needs_ocr,
  ocrLanguage: p.ocr?.language ?? null,
  ocrConfidence: p.ocr?.confidence ?? null,
  ocrRotation: p.ocr?.rotation ?? null,
});

export function sqlitePages(db: Db, gate: TxGate): PagesRepo {
  return {
    list: (jobId, paging) => gate.call(() => paginate(db, pages, eq(pages.jobId, jobId), [asc(pages.page)], paging, pageView)),

    has: (jobId, page) => gate.call(() => !!db.select({ page: pages.page }).from(pages).where(and(eq(pages.jobId, jobId), eq(pages.page, page))).get()),

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
          .select({ page: pages.page, language: pages.ocrLanguage, confidence: pages.ocrConfidence, rotation: pages.ocrRotation })
          .from(pages)
          .where(and(eq(pages.jobId, jobId), isNotNull(pages.ocrLanguage)))
          .orderBy(pages.page)
          .all()
          .map((p) => ({ ...p, language: p.language ?? '' })),
      })),
  };
}

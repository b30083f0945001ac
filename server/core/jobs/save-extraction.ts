import { eq } from 'drizzle-orm';
import { blocks, chunks, jobs, pages } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { insertMany } from '../../store/sqlite/insert-many.js';
import type { ChunkDraft } from '../chunking/types.js';
import type { ExtractTaskOutput, NumberedBlock } from '../tasks.js';
import type { ExtractedPage } from '../extract/types.js';
import { isFlagged } from '../review/ocr-flags.js';
import { commonPageSize } from '../pages/page-list.js';

function pageRow(jobId: string, p: ExtractedPage): typeof pages.$inferInsert {
  return {
    jobId,
    page: p.page,
    width: p.width,
    height: p.height,
    rotation: p.rotation ?? 0,
    needsOcr: p.needs_ocr,
    ocrLanguage: p.ocr?.lang ?? null,
    ocrConfidence: p.ocr?.confidence ?? null,
    ocrRotation: p.ocr?.rotation ?? null,
  };
}

export function blockRow(jobId: string, b: NumberedBlock): typeof blocks.$inferInsert {
  return {
    jobId,
    blockId: b.block_id,
    orderIndex: b.order_index,
    page: b.page,
    type: b.type,
    text: b.text,
    bbox: b.bbox,
    headingLevel: b.heading_level ?? null,
    indentLevel: b.indent_level ?? null,
    hierarchyPath: b.hierarchy_path,
    tableGrid: b.table ?? null,
    language: b.language ?? null,
    source: b.source ?? 'text',
    confidence: b.confidence ?? null,
    flagged: isFlagged(b.source, b.confidence),
  };
}

export function chunkRow(jobId: string, c: ChunkDraft, orderIndex: number): typeof chunks.$inferInsert {
  return {
    jobId,
    chunkId: c.chunk_id,
    orderIndex,
    text: c.text,
    tokenCount: c.token_count,
    chunkType: c.chunk_type,
    sectionPath: c.section_path,
    pageNumbers: c.page_numbers,
    blockIds: c.block_ids,
  };
}

export function insertChunks(db: DbLike, jobId: string, drafts: ChunkDraft[], orderOf: (c: ChunkDraft) => number): void {
  insertMany(db, chunks, drafts.map((c) => chunkRow(jobId, c, orderOf(c))));
}

/**
 * Replaces whatever a job held (a resumed job may have been half written) with an extraction's output
 * and moves it to ready_for_review. Returns false, writing nothing, when the job is no longer processing
 * (cancelled or deleted while the worker ran).
 */
export function saveExtraction(db: Db, jobId: string, out: ExtractTaskOutput, now: string): boolean {
  return db.transaction((tx) => {
    const job = tx.select({ status: jobs.status }).from(jobs).where(eq(jobs.jobId, jobId)).get();
    if (job?.status !== 'processing') return false;
    tx.delete(pages).where(eq(pages.jobId, jobId)).run();
    tx.delete(blocks).where(eq(blocks.jobId, jobId)).run();
    tx.delete(chunks).where(eq(chunks.jobId, jobId)).run();
    const doc = out.document;
    insertMany(tx, pages, doc.pages.map((p) => pageRow(jobId, p)));
    insertMany(tx, blocks, out.blocks.map((b) => blockRow(jobId, b)));
    const order = new Map(out.chunks.map((c, i) => [c.chunk_id, i]));
    insertChunks(tx, jobId, out.chunks, (c) => order.get(c.chunk_id) ?? 0);
    tx.update(jobs)
      .set({
        status: 'ready_for_review',
        totalPages: doc.total_pages,
        pagesDone: doc.total_pages,
        totalBlocks: out.blocks.length,
        totalChunks: out.chunks.length,
        title: doc.title ?? null,
        detectedLanguage: doc.language ?? null,
        pageSize: commonPageSize(doc.pages),
        warnings: doc.warnings,
        finishedAt: now,
        updatedAt: now,
      })
      .where(eq(jobs.jobId, jobId))
      .run();
    return true;
  });
}

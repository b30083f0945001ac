import { ingestStatus } from './bots/ingest-status.js';
import type { JobState } from './jobs/job-states.js';
import { DEFAULT_OCR_LANG } from './ocr/ocr-languages.js';
import type { blocks, chunks, jobs, pages, revisions } from '../../drizzle/schema.js';

type JobRow = typeof jobs.$inferSelect;
type PageRow = typeof pages.$inferSelect;
type BlockRow = typeof blocks.$inferSelect;
type ChunkRow = typeof chunks.$inferSelect;
type RevisionRow = typeof revisions.$inferSelect;

/** Row -> API shape. Field names follow the spec, with LongParser's names alongside for its clients. */
/** A page whose text came from OCR: the language data used, tesseract's mean word confidence, the turn read upright. */
export interface OcrPageView {
  page: number;
  language: string;
  confidence: number | null;
  rotation: number | null;
}

export function jobView(row: JobRow, ocrPages: number[] = [], ocrRead: OcrPageView[] = []) {
  return {
    job_id: row.jobId,
    status: row.status as JobState,
    source_file: row.sourceFile,
    format: row.format,
    file_hash: row.fileHash,
    size_bytes: row.sizeBytes,
    title: row.title,
    total_pages: row.totalPages,
    total_blocks: row.totalBlocks,
    total_chunks: row.totalChunks,
    progress: { pages_done: row.pagesDone, total_pages: row.totalPages },
    pages_needing_ocr: ocrPages,
    page_size: row.pageSize ?? null,
    ocr: { language: row.options.ocr_language ?? DEFAULT_OCR_LANG, pages: ocrRead },
    detected_language: row.detectedLanguage ?? null,
    options: row.options,
    warnings: row.warnings,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    finalize_policy: row.finalizePolicy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    started_at: row.startedAt,
    finished_at: row.finishedAt,
    finalized_at: row.finalizedAt,
    // A bot's document also answers as Long-Trainer's clients poll it.
    ...(row.botId ? { bot_id: row.botId, ingest_status: ingestStatus(row), source: row.source } : {}),
  };
}
export type JobView = ReturnType<typeof jobView>;

export function pageView(row: PageRow) {
  return {
    page: row.page,
    width: row.width,
    height: row.height,
    rotation: row.rotation,
    needs_ocr: row.needsOcr,
    ocr: row.ocrLanguage === null ? null : { language: row.ocrLanguage, confidence: row.ocrConfidence, rotation: row.ocrRotation },
  };
}
export type PageView = ReturnType<typeof pageView>;

export function blockView(row: BlockRow) {
  return {
    block_id: row.blockId,
    order_index: row.orderIndex,
    // What counts is the reviewer's reading (LongParser answers the same); the machine's stays in original_*.
    type: row.editedType ?? row.type,
    text: row.editedText ?? row.text,
    original_type: row.type,
    original_text: row.text,
    page: row.page,
    page_number: row.page,
    bbox: row.bbox,
    heading_level: row.headingLevel,
    indent_level: row.indentLevel ?? 0,
    hierarchy_path: row.hierarchyPath,
    table: row.tableGrid,
    language: row.language,
    source: row.source,
    confidence: row.confidence,
    flagged: row.flagged,
    status: row.status,
    review_status: row.status,
    edited_text: row.editedText,
    edited_type: row.editedType,
    reviewer_note: row.reviewerNote,
    version: row.version,
    current_revision_id: row.currentRevisionId,
    updated_at: row.updatedAt,
  };
}
export type BlockView = ReturnType<typeof blockView>;

export function chunkView(row: ChunkRow) {
  return {
    chunk_id: row.chunkId,
    order_index: row.orderIndex,
    text: row.editedText ?? row.text,
    original_text: row.text,
    edited_text: row.editedText,
    token_count: row.tokenCount,
    chunk_type: row.chunkType,
    section_path: row.sectionPath,
    page_numbers: row.pageNumbers,
    block_ids: row.blockIds,
    status: row.status,
    review_status: row.status,
    reviewer_note: row.reviewerNote,
    stale: row.stale,
    version: row.version,
    current_revision_id: row.currentRevisionId,
    updated_at: row.updatedAt,
  };
}
export type ChunkView = ReturnType<typeof chunkView>;

export function revisionView(row: RevisionRow) {
  return {
    revision_id: row.revisionId,
    entity_type: row.entityType,
    entity_id: row.entityId,
    previous_revision_id: row.previousRevisionId,
    action: row.action,
    before: row.before,
    after: row.after,
    original_text: row.originalText,
    edited_text: row.editedText,
    edited_type: row.editedType,
    reviewer_id: row.reviewerId,
    reviewer_note: row.reviewerNote,
    timestamp: row.timestamp,
    undoes_revision_id: row.undoesRevisionId,
  };
}
export type RevisionView = ReturnType<typeof revisionView>;

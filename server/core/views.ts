import type { Static } from 'typebox';
import type { Job } from '../schemas/jobs.js';
import type { BlockRecord, BlockView, JobRecord } from '../store/repos/jobs-repo.js';
import type { OcrPages } from '../store/repos/pages-repo.js';
import { ingestStatus } from './bots/ingest-status.js';
import { DEFAULT_OCR_LANG } from './ocr/ocr-languages.js';

export type { BlockView, ChunkView } from '../store/repos/jobs-repo.js';
export type { OcrPageView, PageView } from '../store/repos/pages-repo.js';
export type { RevisionView } from '../store/repos/revisions-repo.js';

/** A job as the API answers it (GET /jobs/{id} adds its review counts and index). */
export type JobView = Static<typeof Job>;

/** Stored job -> API shape. Field names follow the spec, with LongParser's names alongside for its clients. */
export function jobView(job: JobRecord, ocr: OcrPages = { needing: [], read: [] }): JobView {
  return {
    job_id: job.job_id,
    status: job.status,
    source_file: job.source_file,
    format: job.format,
    file_hash: job.file_hash,
    size_bytes: job.size_bytes,
    title: job.title,
    total_pages: job.total_pages,
    total_blocks: job.total_blocks,
    total_chunks: job.total_chunks,
    progress: { pages_done: job.pages_done, total_pages: job.total_pages },
    pages_needing_ocr: ocr.needing,
    page_size: job.page_size ?? null,
    ocr: { language: job.options.ocr_language ?? DEFAULT_OCR_LANG, pages: ocr.read },
    detected_language: job.detected_language ?? null,
    options: job.options,
    warnings: job.warnings,
    error: job.error_code ? { code: job.error_code, message: job.error_message ?? '' } : null,
    finalize_policy: job.finalize_policy,
    created_at: job.created_at,
    updated_at: job.updated_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    finalized_at: job.finalized_at,
    // A bot's document also answers as Long-Trainer's clients poll it.
    ...(job.bot_id
      ? {
          bot_id: job.bot_id,
          ingest_status: ingestStatus({ status: job.status, source: job.source, errorCode: job.error_code }),
          source: job.source as Record<string, unknown> | null,
        }
      : {}),
  };
}

/** Stored block -> API shape: what counts is the reviewer's reading (LongParser answers the same); the machine's stays in original_*. */
export function blockView(b: BlockRecord): BlockView {
  return {
    block_id: b.block_id,
    order_index: b.order_index,
    type: (b.edited_type ?? b.type) as BlockView['type'],
    text: b.edited_text ?? b.text,
    original_type: b.type as BlockView['original_type'],
    original_text: b.text,
    page: b.page,
    page_number: b.page,
    bbox: b.bbox,
    heading_level: b.heading_level,
    indent_level: b.indent_level ?? 0,
    hierarchy_path: b.hierarchy_path,
    table: b.table_grid,
    language: b.language,
    source: b.source as BlockView['source'],
    confidence: b.confidence,
    flagged: b.flagged,
    status: b.status as BlockView['status'],
    review_status: b.status as BlockView['status'],
    edited_text: b.edited_text,
    edited_type: b.edited_type as BlockView['edited_type'],
    reviewer_note: b.reviewer_note,
    version: b.version,
    current_revision_id: b.current_revision_id,
    updated_at: b.updated_at,
  };
}

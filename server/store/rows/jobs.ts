/**
 * Rows of the jobs, pages, blocks and chunks tables <-> the store's records, for both backends: the SQLite
 * and PostgreSQL tables have the same columns under the same names (drizzle/schema.ts, drizzle/pg/schema.ts).
 * Written out field by field: a long document's thousands of rows pass through these on every save and read.
 */
import type { blocks, chunks, jobs, pages } from '../../../drizzle/schema.js';
import type {
  BlockChanges,
  BlockRecord,
  ChunkChanges,
  ChunkView,
  JobChanges,
  JobRecord,
  NewBlock,
  NewChunk,
  NewPage,
  ReviewTally,
} from '../repos/jobs-repo.js';
import type { PageView } from '../repos/pages-repo.js';

export type JobRow = typeof jobs.$inferSelect;
type BlockRow = typeof blocks.$inferSelect;
type BlockInsert = typeof blocks.$inferInsert;
type ChunkRow = typeof chunks.$inferSelect;
type ChunkInsert = typeof chunks.$inferInsert;
type PageRow = typeof pages.$inferSelect;

type JobInsert = typeof jobs.$inferInsert;

export const jobRecord = (r: JobRow): JobRecord => ({
  job_id: r.jobId,
  status: r.status as JobRecord['status'],
  source_file: r.sourceFile,
  format: r.format as JobRecord['format'],
  file_hash: r.fileHash,
  size_bytes: r.sizeBytes,
  title: r.title,
  total_pages: r.totalPages,
  pages_done: r.pagesDone,
  total_blocks: r.totalBlocks,
  total_chunks: r.totalChunks,
  options: r.options,
  warnings: r.warnings,
  error_code: r.errorCode,
  error_message: r.errorMessage,
  finalize_policy: r.finalizePolicy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
  finalized_at: r.finalizedAt,
  bot_id: r.botId,
  source: r.source,
  page_size: r.pageSize,
  attempts: r.attempts,
  detected_language: r.detectedLanguage,
});

/** Fields to set, as a row's (those not given are left as they are). */
export const jobSet = (c: JobChanges): Partial<JobInsert> => ({
  status: c.status,
  sourceFile: c.source_file,
  format: c.format,
  fileHash: c.file_hash,
  sizeBytes: c.size_bytes,
  title: c.title,
  totalPages: c.total_pages,
  pagesDone: c.pages_done,
  totalBlocks: c.total_blocks,
  totalChunks: c.total_chunks,
  options: c.options,
  warnings: c.warnings,
  errorCode: c.error_code,
  errorMessage: c.error_message,
  finalizePolicy: c.finalize_policy,
  updatedAt: c.updated_at,
  startedAt: c.started_at,
  finishedAt: c.finished_at,
  finalizedAt: c.finalized_at,
  botId: c.bot_id,
  source: c.source,
  pageSize: c.page_size,
  detectedLanguage: c.detected_language,
});

export const blockRecord = (r: BlockRow): BlockRecord => ({
  job_id: r.jobId,
  block_id: r.blockId,
  order_index: r.orderIndex,
  page: r.page,
  type: r.type,
  text: r.text,
  bbox: r.bbox,
  heading_level: r.headingLevel,
  indent_level: r.indentLevel,
  hierarchy_path: r.hierarchyPath,
  table_grid: r.tableGrid as BlockRecord['table_grid'],
  language: r.language,
  source: r.source,
  confidence: r.confidence,
  flagged: r.flagged,
  status: r.status,
  edited_text: r.editedText,
  edited_type: r.editedType,
  reviewer_note: r.reviewerNote,
  version: r.version,
  current_revision_id: r.currentRevisionId,
  updated_at: r.updatedAt,
});

/** An extracted block's row: every row sets the same columns (insert-many.ts), review columns at their defaults. */
export const newBlockRow = (jobId: string, b: NewBlock): BlockInsert => ({
  jobId,
  blockId: b.block_id,
  orderIndex: b.order_index,
  page: b.page,
  type: b.type,
  text: b.text,
  bbox: b.bbox,
  headingLevel: b.heading_level,
  indentLevel: b.indent_level,
  hierarchyPath: b.hierarchy_path,
  tableGrid: b.table_grid,
  language: b.language,
  source: b.source,
  confidence: b.confidence,
  flagged: b.flagged,
});

/** Fields to set, as a row's (those not given are left as they are). */
export const blockSet = (c: BlockChanges): Partial<BlockInsert> => ({
  orderIndex: c.order_index,
  page: c.page,
  type: c.type,
  text: c.text,
  bbox: c.bbox,
  headingLevel: c.heading_level,
  indentLevel: c.indent_level,
  hierarchyPath: c.hierarchy_path,
  tableGrid: c.table_grid,
  language: c.language,
  source: c.source,
  confidence: c.confidence,
  flagged: c.flagged,
  status: c.status,
  editedText: c.edited_text,
  editedType: c.edited_type,
  reviewerNote: c.reviewer_note,
  version: c.version,
  currentRevisionId: c.current_revision_id,
  updatedAt: c.updated_at,
});

export function chunkView(row: ChunkRow): ChunkView {
  return {
    chunk_id: row.chunkId,
    order_index: row.orderIndex,
    text: row.editedText ?? row.text,
    original_text: row.text,
    edited_text: row.editedText,
    token_count: row.tokenCount,
    chunk_type: row.chunkType as ChunkView['chunk_type'],
    section_path: row.sectionPath,
    page_numbers: row.pageNumbers,
    block_ids: row.blockIds,
    status: row.status as ChunkView['status'],
    review_status: row.status as ChunkView['status'],
    reviewer_note: row.reviewerNote,
    stale: row.stale,
    version: row.version,
    current_revision_id: row.currentRevisionId,
    updated_at: row.updatedAt,
  };
}

/** A built chunk's row: every row sets the same columns (insert-many.ts), review columns at their defaults. */
export const newChunkRow = (jobId: string, c: NewChunk): ChunkInsert => ({
  jobId,
  chunkId: c.chunk_id,
  orderIndex: c.order_index,
  text: c.text,
  tokenCount: c.token_count,
  chunkType: c.chunk_type,
  sectionPath: c.section_path,
  pageNumbers: c.page_numbers,
  blockIds: c.block_ids,
});

export function chunkSet(c: ChunkChanges): Partial<ChunkInsert> {
  return {
    orderIndex: c.order_index,
    text: c.original_text,
    editedText: c.edited_text,
    status: c.status,
    reviewerNote: c.reviewer_note,
    stale: c.stale,
    version: c.version,
    currentRevisionId: c.current_revision_id,
    updatedAt: c.updated_at,
    blockIds: c.block_ids,
  };
}

export const pageView = (row: PageRow): PageView => ({
  page: row.page,
  width: row.width,
  height: row.height,
  rotation: row.rotation,
  needs_ocr: row.needsOcr,
  ocr:
    row.ocrLanguage === null
      ? null
      : { language: row.ocrLanguage, confidence: row.ocrConfidence, rotation: row.ocrRotation },
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

/** Review states counted by a GROUP BY, every state present. */
export function tally(rows: { status: string; n: number }[]): ReviewTally {
  const out: ReviewTally = { pending: 0, approved: 0, edited: 0, rejected: 0 };
  for (const r of rows) if (r.status in out) out[r.status as keyof ReviewTally] = r.n;
  return out;
}

import type { NewBlock, NewChunk, NewPage } from '../../store/repos/jobs-repo.js';
import type { Repositories } from '../../store/store.js';
import type { ChunkDraft } from '../chunking/types.js';
import type { ExtractTaskOutput, NumberedBlock } from '../tasks.js';
import type { ExtractedPage } from '../extract/types.js';
import { isFlagged } from '../ocr/ocr-flags.js';
import { commonPageSize } from '../pages/page-list.js';

export function newPage(p: ExtractedPage): NewPage {
  return {
    page: p.page,
    width: p.width,
    height: p.height,
    rotation: p.rotation ?? 0,
    needs_ocr: p.needs_ocr,
    ocr: p.ocr
      ? { language: p.ocr.lang, confidence: p.ocr.confidence ?? null, rotation: p.ocr.rotation ?? null }
      : null,
  };
}

export function newBlock(b: NumberedBlock): NewBlock {
  return {
    block_id: b.block_id,
    order_index: b.order_index,
    page: b.page,
    type: b.type,
    text: b.text,
    bbox: b.bbox,
    heading_level: b.heading_level ?? null,
    indent_level: b.indent_level ?? null,
    hierarchy_path: b.hierarchy_path,
    table_grid: b.table ?? null,
    language: b.language ?? null,
    source: b.source ?? 'text',
    confidence: b.confidence ?? null,
    flagged: isFlagged(b.source, b.confidence),
  };
}

export function newChunk(c: ChunkDraft, orderIndex: number): NewChunk {
  return {
    chunk_id: c.chunk_id,
    order_index: orderIndex,
    text: c.text,
    token_count: c.token_count,
    chunk_type: c.chunk_type,
    section_path: c.section_path,
    page_numbers: c.page_numbers,
    block_ids: c.block_ids,
  };
}

/**
 * Replaces whatever a job held (a resumed job may have been half written) with an extraction's output
 * and moves it to ready_for_review, in one transaction. Returns false, writing nothing, when the job is no
 * longer processing (cancelled or deleted while the worker ran).
 */
export function saveExtraction(
  store: Pick<Repositories, 'jobs'>,
  jobId: string,
  out: ExtractTaskOutput,
  now: string,
): Promise<boolean> {
  const doc = out.document;
  const order = new Map(out.chunks.map((c, i) => [c.chunk_id, i]));
  return store.jobs.saveExtraction(jobId, {
    pages: doc.pages.map(newPage),
    blocks: out.blocks.map(newBlock),
    chunks: out.chunks.map((c) => newChunk(c, order.get(c.chunk_id) ?? 0)),
    job: {
      status: 'ready_for_review',
      total_pages: doc.total_pages,
      pages_done: doc.total_pages,
      total_blocks: out.blocks.length,
      total_chunks: out.chunks.length,
      title: doc.title ?? null,
      detected_language: doc.language ?? null,
      page_size: commonPageSize(doc.pages),
      warnings: doc.warnings,
      finished_at: now,
      updated_at: now,
    },
  });
}

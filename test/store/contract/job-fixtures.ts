/** Jobs, blocks and chunks for contract cases, written through the Store interface only. */
import type { Extraction, NewBlock, NewChunk, NewJob } from '../../../server/store/repos/jobs-repo.js';
import type { Store } from '../../../server/store/store.js';

export const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

export const newJob = (jobId: string, minute = 0, over: Partial<NewJob> = {}): NewJob => ({
  job_id: jobId,
  status: 'queued',
  source_file: `${jobId}.pdf`,
  format: 'pdf',
  file_hash: 'f'.repeat(64),
  size_bytes: 1234,
  options: { chunk_size: 256, chunk_overlap: 32 },
  bot_id: null,
  source: null,
  created_at: at(minute),
  updated_at: at(minute),
  ...over,
});

export const newBlock = (n: number, over: Partial<NewBlock> = {}): NewBlock => ({
  block_id: `b${n}`,
  order_index: n,
  page: 1 + Math.floor(n / 2),
  type: 'paragraph',
  text: `Block ${n} text`,
  bbox: { x0: 0, y0: n * 10, x1: 100, y1: n * 10 + 8 },
  heading_level: null,
  indent_level: null,
  hierarchy_path: [],
  table_grid: null,
  language: null,
  source: 'text',
  confidence: null,
  flagged: false,
  ...over,
});

export const newChunk = (n: number, blockIds: string[], pages: number[], over: Partial<NewChunk> = {}): NewChunk => ({
  chunk_id: `c${n}`,
  order_index: n,
  text: `Chunk ${n} text`,
  token_count: 10 + n,
  chunk_type: 'section',
  section_path: ['Intro'],
  page_numbers: pages,
  block_ids: blockIds,
  ...over,
});

/** Four blocks on pages 1-2 (b0, b1 on 1; b2, b3 on 2) and two chunks (c0 of b0-b1, c1 of b2-b3). */
export function extraction(over: Partial<Extraction> = {}): Extraction {
  return {
    pages: [
      { page: 1, width: 612, height: 792, rotation: 0, needs_ocr: false, ocr: null },
      {
        page: 2,
        width: 612,
        height: 792,
        rotation: 90,
        needs_ocr: true,
        ocr: { language: 'eng', confidence: 88.5, rotation: 0 },
      },
    ],
    blocks: [0, 1, 2, 3].map((n) => newBlock(n)),
    chunks: [newChunk(0, ['b0', 'b1'], [1]), newChunk(1, ['b2', 'b3'], [2])],
    job: {
      status: 'ready_for_review',
      total_pages: 2,
      pages_done: 2,
      total_blocks: 4,
      total_chunks: 2,
      title: 'A title',
      finished_at: at(9),
      updated_at: at(9),
    },
    ...over,
  };
}

/** A job read and ready for review, holding `extraction()`. */
export async function readyJob(store: Store, jobId = 'job-1'): Promise<string> {
  await store.jobs.insert(newJob(jobId));
  await store.jobs.claim(jobId, at(1));
  if (!(await store.jobs.saveExtraction(jobId, extraction()))) throw new Error('the job was not processing');
  return jobId;
}

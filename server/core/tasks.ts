/**
 * The worker protocol, typed once for both sides. The HTTP thread sends a task by name; the worker
 * (workers/index.ts) exports one function per name. Inputs and outputs are plain data (structured clone);
 * extraction progress comes back over a transferred MessagePort as `{ pagesDone, totalPages }` messages.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ChunkDraft, ChunkInputBlock, ChunkOptions } from './chunking/types.js';
import type { PdfPages } from './extract/pdf/index.js';
import type { DocumentFormat, ExtractedBlock, ExtractionResult } from './extract/types.js';

export interface NumberedBlock extends ExtractedBlock {
  block_id: string;
  order_index: number;
  /** Texts of the headings above the block, outermost first. */
  hierarchy_path: string[];
}

export interface ExtractTaskInput {
  path: string;
  format: DocumentFormat;
  chunk: Omit<ChunkOptions, 'id_seed'>;
  id_seed: string;
  progressPort?: MessagePort;
}

export interface ExtractTaskOutput {
  document: Omit<ExtractionResult, 'blocks'>;
  blocks: NumberedBlock[];
  chunks: ChunkDraft[];
}

/** One worker's share of a PDF's pages (parallel extraction of one document). */
export interface PdfPagesTaskInput {
  path: string;
  from: number;
  to: number;
  progressPort?: MessagePort;
}

/** Turns the page layouts read by several workers into the same output as `extract`. */
export interface AssemblePdfTaskInput {
  parts: PdfPages[];
  chunk: Omit<ChunkOptions, 'id_seed'>;
  id_seed: string;
}

export interface ChunkTaskInput {
  blocks: ChunkInputBlock[];
  options: ChunkOptions;
}

export interface TaskMap {
  extract: { input: ExtractTaskInput; output: ExtractTaskOutput };
  chunk: { input: ChunkTaskInput; output: ChunkDraft[] };
  pdfInfo: { input: { path: string }; output: { pages: number; title?: string } };
  pdfPages: { input: PdfPagesTaskInput; output: PdfPages };
  assemblePdf: { input: AssemblePdfTaskInput; output: ExtractTaskOutput };
}

export interface ProgressMessage {
  pagesDone: number;
  totalPages: number;
}

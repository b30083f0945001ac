/**
 * The worker protocol, typed once for both sides. The HTTP thread sends a task by name; the worker
 * (workers/index.ts) exports one function per name. Inputs and outputs are plain data (structured clone);
 * extraction progress comes back over a transferred MessagePort as `{ pagesDone, totalPages }` messages,
 * and the two readers of a shared PDF talk over a MessagePort of their own.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ChunkDraft, ChunkInputBlock, ChunkOptions } from './chunking/types.js';
import type { DocumentLimits } from './extract/limits.js';
import type { DocumentFormat, ExtractedBlock, ExtractionResult } from './extract/types.js';
import type { BBox, OcrOptions } from './extract/types.js';
import type { OcrPageResult } from './extract/types.js';
import type { Pooling } from './embedding/pooling.js';
import type { ReadablePage } from './sources/readable-html.js';

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
  /** OCR of pages without a text layer and of image documents (language, dpi). */
  ocr?: OcrOptions;
  progressPort?: MessagePort;
}

export interface ExtractTaskOutput {
  document: Omit<ExtractionResult, 'blocks'>;
  blocks: NumberedBlock[];
  chunks: ChunkDraft[];
}

/**
 * The first of two threads reading one PDF (see readPdfShare): reads its share, takes the other's from
 * `helperPort`, and assembles, numbers and chunks the document as `extract` does.
 */
export interface PdfLeadTaskInput extends ExtractTaskInput {
  helperPort: MessagePort;
  /** The counter both readers take runs of pages from (shared memory, starting at 0; see readPdfShare). */
  nextRun: Int32Array;
}

/** The second reader: reads its share and posts it (PdfPages, or null when the lead reads alone) on `leadPort`. */
export interface PdfHelperTaskInput {
  path: string;
  ocr?: OcrOptions;
  progressPort?: MessagePort;
  leadPort: MessagePort;
  nextRun: Int32Array;
}

export interface ChunkTaskInput {
  blocks: ChunkInputBlock[];
  options: ChunkOptions;
}

export interface TaskMap {
  extract: { input: ExtractTaskInput; output: ExtractTaskOutput };
  chunk: { input: ChunkTaskInput; output: ChunkDraft[] };
  extractPdfLead: { input: PdfLeadTaskInput; output: ExtractTaskOutput };
  // biome-ignore lint/suspicious/noConfusingVoidType: the task's function returns nothing, which Piscina sends as undefined
  readPdfShare: { input: PdfHelperTaskInput; output: void };
  renderPage: { input: RenderPageTaskInput; output: Uint8Array };
  ocrPage: { input: OcrPageTaskInput; output: OcrPageResult };
  embed: { input: EmbedTaskInput; output: EmbedTaskOutput };
  readablePage: { input: ReadablePageTaskInput; output: ReadablePage };
}

/** A fetched web page's HTML (already decoded) and the URL it came from, reduced to its main content. */
export interface ReadablePageTaskInput {
  html: string;
  url: string;
}

/** The local ONNX model a worker embeds with; the worker loads it on first use and keeps it. */
export interface EmbedModelSpec {
  onnxPath: string;
  tokenizerPath: string;
  pooling: Pooling;
  maxTokens: number;
  /** False for a model whose sentence-transformers modules have no Normalize; the catalog's all have one. */
  normalize?: boolean;
}

export interface EmbedTaskInput {
  model: EmbedModelSpec;
  texts: string[];
}

/** Unit-length vectors, row-major (texts × dimensions). */
export interface EmbedTaskOutput {
  dimensions: number;
  vectors: Float32Array;
}

/** What every worker thread is started with (Piscina's workerData). */
export interface WorkerSettings {
  /** Times a thread reads the warm-up PDF as it starts (0: none). */
  warmUpRounds: number;
  /** BroadcastChannel (one per pool) on which a thread says it has finished warming up. */
  warmUpChannel: string;
  /** What one document may cost; every task of the thread reads within them. */
  limits: DocumentLimits;
  /** The data folder's OCR languages (`<data_dir>/ocr-languages`): where a thread finds models beyond the bundled ones. */
  ocrLanguagesDir?: string;
  /** What a document may fill of a thread's heap (setting worker_heap_mb; see heap-guard.ts). */
  heapBudgetMb: number;
}

export interface WarmUpMessage {
  threadId: number;
  rounds: number;
}

export interface ProgressMessage {
  pagesDone: number;
  totalPages: number;
}

/** One page of a stored PDF or image document as a PNG `width` pixels wide (for the review UI). */
export interface RenderPageTaskInput {
  path: string;
  format: DocumentFormat;
  page: number;
  width: number;
}

/** Re-reads one page, or a region of it (`bbox` in points), of a stored PDF or image document. */
export interface OcrPageTaskInput {
  path: string;
  format: DocumentFormat;
  page: number;
  lang: string;
  dpi: number;
  bbox?: BBox;
}

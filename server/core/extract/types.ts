/**
 * What every extractor (PDF, DOCX, HTML, Markdown, plain text) returns. Extractors run inside the
 * worker pool; the result crosses the thread boundary by structured clone, so it holds plain data only.
 */
import type { DocumentLimits } from './limits.js';
import type { PdfDocument } from './pdf/pdfjs-loader.js';

/** Block types of the jobs API (NOTES.md), written once. */
export const BLOCK_TYPES = [
  'heading',
  'paragraph',
  'list_item',
  'table',
  'caption',
  'header',
  'footer',
  'code',
  'equation',
  'figure',
] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

/**
 * `image`: PNG, JPEG, TIFF (each page of a multi-page one) or WebP, read by OCR. `xlsx` (and .xlsm; macros
 * never run) and `csv` (any of comma, semicolon or tab as the delimiter) are tables; `pptx` is slides.
 */
export const DOCUMENT_FORMATS = ['pdf', 'docx', 'html', 'markdown', 'text', 'image', 'xlsx', 'csv', 'pptx'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** Box in PDF points with the origin at the page's top-left corner (y grows downwards). */
export interface BBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface TableGrid {
  /** Cell texts, row by row; every row has the same number of cells. */
  rows: string[][];
  /** How many leading rows are header rows (0 when none could be told apart). */
  header_rows: number;
  /**
   * Spreadsheets and CSV only: each column's type, inferred from its cells below the header (a column of
   * mixed types is `string`; one without any value `empty`). Cells stay text in `rows`, as displayed.
   */
  column_types?: ColumnType[];
}

export const COLUMN_TYPES = ['string', 'integer', 'number', 'boolean', 'date', 'empty'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ExtractedBlock {
  type: BlockType;
  /** Plain text; a table's text is its grid rendered as a Markdown table. */
  text: string;
  /** 1-based page number (a presentation's slide number); flow formats (DOCX, HTML, Markdown, text, spreadsheets) put everything on page 1. */
  page: number;
  /** Null for flow formats, which have no page geometry. */
  bbox: BBox | null;
  /** 1..6, for headings only. */
  heading_level?: number;
  /** Nesting depth for list items, 0 for the outermost list. */
  indent_level?: number;
  table?: TableGrid;
  /** Language of a code block, when the source says it; for an OCR block, the OCR language data used. */
  language?: string;
  /** Where the text came from: the document's own text layer (default) or OCR of the page image. */
  source?: 'text' | 'ocr';
  /** OCR only: mean word confidence of the block, 0..100 as tesseract reports it. */
  confidence?: number;
}

export interface ExtractedPage {
  page: number;
  /** Page size in points (flow formats: 0), as the page is shown: after `rotation`, the space of its block boxes. */
  width: number;
  height: number;
  /**
   * The clockwise turn the document asks viewers to show the page at (a PDF's /Rotate); width, height and
   * boxes are of the page so turned. Image pages are shown as stored (0); flow formats have none.
   */
  rotation?: 0 | 90 | 180 | 270;
  /** True when the page carries no (or too little) extractable text and must be OCRed. */
  needs_ocr: boolean;
  /** Set once the page was OCRed: the language data used and the page's mean word confidence. */
  ocr?: { lang: string; confidence: number; rotation: 0 | 90 | 180 | 270 };
}

export interface ExtractionResult {
  format: DocumentFormat;
  total_pages: number;
  pages: ExtractedPage[];
  /** All blocks of the document in reading order (page by page, then within the page). */
  blocks: ExtractedBlock[];
  title?: string;
  warnings: string[];
  /** The language of the text (detect-language.ts), set by the worker after extraction; null when unsure. */
  language?: DetectedLanguage | null;
}

/** A document's language as detected from its text layer, or from its first OCR pass. */
export interface DetectedLanguage {
  /** ISO 639-3 (macrolanguage where one exists: ara, zho). */
  code: string;
  /** The OCR language (tesseract code) that reads it, when Lectern knows one. */
  ocr_language: string | null;
  /** 0..1: how far ahead of the next candidate the language is. */
  confidence: number;
  /** Detected on the text layer, or on text that OCR read (more than half of the sample). */
  source: 'text' | 'ocr';
}

/** Reported after each page (PDF) or once at the end (flow formats). */
export type ProgressFn = (pagesDone: number, totalPages: number) => void;

/** How pages without a text layer (and image documents) are OCRed. */
export interface OcrOptions {
  /** Tesseract language code whose data package is installed (`eng` by default). */
  lang: string;
  /** Render resolution for PDF pages (300 by default). */
  dpi?: number;
}

/** One page read by OCR: its blocks and the page's record with what OCR did. */
export interface OcrPageResult {
  blocks: ExtractedBlock[];
  page: ExtractedPage & { ocr: NonNullable<ExtractedPage['ocr']> };
  /** Resolution the page was read at: the render dpi of a PDF page, an image's own (stated, else 300). */
  dpi: number;
}

/**
 * OCRs one page of an open PDF. The OCR module's reader is handed in by whoever runs an extraction (the
 * pool's worker, read-document.ts), so that extraction, which OCR builds on, never imports OCR.
 */
export type PdfPageOcr = (
  doc: PdfDocument,
  page: number,
  opts: { lang: string; dpi: number; limits?: DocumentLimits },
) => Promise<OcrPageResult>;

export interface ExtractOptions {
  onProgress?: ProgressFn;
  /** What the document may cost (decompressed bytes, pixels, pages); DEFAULT_LIMITS when absent. */
  limits?: DocumentLimits;
  /** Without it, pages that need OCR are only flagged (`needs_ocr`), as before OCR existed. */
  ocr?: OcrOptions;
  /** How a PDF page is OCRed; needed with `ocr`. A function: set where the extraction runs, never sent to a worker. */
  pageOcr?: PdfPageOcr;
}

/**
 * What one document may cost. A document crossing a limit fails with a coded error (its job's `error`),
 * never by taking the server down. The settings schema's defaults come from here; core functions fall
 * back to them when called without settings (tests, benches).
 *
 * How the defaults add up on a 2-core machine, whose two worker threads may read two hostile files at once
 * (measured by test/api/hostile-files.test.ts and hostile-operators.test.ts; the process stays under 1.5 GB):
 * ~250 MB for the server and its idle threads, plus per thread the part it inflated (at most
 * `maxDecompressedPartBytes`, stopped there by zlib or pdf.js's patched decoders), the heap a PDF may fill
 * (heap-guard.ts: 45 % of `worker_heap_mb`) and, for an image or a rendered page, about 10 bytes a pixel
 * (canvas RGBA, its copy, grey, the OCR engine's copy). Two PDFs of 120 MiB of text operators peaked at 1.26 GB.
 */
export interface DocumentLimits {
  /** Bytes a document may inflate to in all (PDF streams, DOCX/OOXML zip members). */
  maxDecompressedBytes: number;
  /** Bytes any one compressed part (a PDF stream, a zip member) may inflate to. */
  maxDecompressedPartBytes: number;
  /** Pixels of an image document's page (an image inside a PDF is left out beyond twice it). */
  maxImagePixels: number;
  /** Pixels of a PDF page rendered for OCR or for the review UI. */
  maxPagePixels: number;
  /** Pages of a PDF or TIFF, slides of a presentation. */
  maxPages: number;
  /**
   * Rows of a spreadsheet or CSV, all its sheets together (empty rows left out). Past it the document fails
   * with TOO_MANY_ROWS as soon as the row after the last allowed one is read, so a CSV of millions of rows
   * costs what `maxSheetRows` rows cost: nobody reviews a million rows, and half a table would answer
   * questions about the whole of it wrongly.
   */
  maxSheetRows: number;
  /** Cells of the grids of a spreadsheet, CSV or presentation's tables, all together (TOO_MANY_CELLS). */
  maxSheetCells: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: DocumentLimits = {
  maxDecompressedBytes: 4096 * MiB,
  maxDecompressedPartBytes: 128 * MiB,
  // 30 Mpx: an A4 scan at 550 dpi, A3 at 400 dpi. Reading one costs ~16 bytes a pixel at its peak (the
  // decoded bitmap, grey, the OCR engine's copies): two 40 Mpx scans at once took the server to 1.54 GB.
  maxImagePixels: 30_000_000,
  // 30 Mpx: A3 at 400 dpi, A2 at 250 dpi (the default 300 dpi OCR render of an A2 page is refused).
  maxPagePixels: 30_000_000,
  maxPages: 10_000,
  // A CSV of 100,000 rows of 10 columns (8 MB, 1,000,000 cells) took 9 s to ready_for_review on 2 loaded cores,
  // made 9,079 chunks, and the whole server peaked at 633 MB resident; the grid and its Markdown hold ~80 MB
  // of the worker's heap, the chunks about as much again. Its one table block is a 32 MB JSON answer.
  maxSheetRows: 100_000,
  maxSheetCells: 1_000_000,
};

/** Defaults of the limits that live outside the worker threads (settings `max_job_seconds`, `worker_heap_mb`). */
export const JOB_LIMIT_DEFAULTS = {
  /** Wall time of one job's extraction: a long OCR job of 1,000 scanned pages takes about 20 minutes on 2 cores. */
  maxJobSeconds: 3600,
  /**
   * Heap budget of each worker thread: the heap guard gives a document up well before it (heap-guard.ts).
   * V8's own limit for the thread is this or 2 GB, whichever is more (pool.ts); past it the thread ends
   * and its task fails alone, when V8 manages to stop it (nodejs/node#47224).
   */
  workerHeapMb: 512,
} as const;

export type LimitCode =
  | 'DECOMPRESSED_TOO_LARGE'
  | 'IMAGE_TOO_LARGE'
  | 'TOO_MANY_PAGES'
  | 'TOO_MANY_ROWS'
  | 'TOO_MANY_CELLS';

/** A crossed limit, as a plain coded error (classes do not survive the trip out of a worker thread). */
export function limitError(code: LimitCode, message: string): Error & { code: LimitCode } {
  return Object.assign(new Error(message), { code });
}

export function formatBytes(n: number): string {
  if (n >= 1024 * MiB) return `${(n / (1024 * MiB)).toFixed(1)} GiB`;
  if (n >= MiB) return `${Math.round(n / MiB)} MiB`;
  return `${n} bytes`;
}

/** Refuses a document of more than `limits.maxPages` pages before any of them is read. */
export function checkPageCount(pages: number, limits: DocumentLimits): void {
  if (pages > limits.maxPages) {
    throw limitError(
      'TOO_MANY_PAGES',
      `the document has ${pages} pages, more than the limit of ${limits.maxPages} (setting max_pages)`,
    );
  }
}

/** Refuses an image of more than `limits.maxImagePixels` pixels before it is decoded. */
export function checkImagePixels(width: number, height: number, limits: DocumentLimits): void {
  if (width * height > limits.maxImagePixels) {
    throw limitError(
      'IMAGE_TOO_LARGE',
      `the image is ${width} x ${height} pixels (${Math.round((width * height) / 1e6)} Mpx), more than the limit of ${Math.round(limits.maxImagePixels / 1e6)} Mpx (setting max_image_pixels)`,
    );
  }
}

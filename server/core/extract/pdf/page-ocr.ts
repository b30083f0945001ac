/**
 * OCR inside PDF extraction. The page reader calls `ocrPageWithoutText` after each page: a page it found
 * without a usable text layer is rendered and OCRed right there, while the document is open, so a mixed
 * document is read in one pass (text pages keep their text). `assemblePdf` then puts the OCR blocks among
 * the text blocks in page order and notes on each page what OCR did.
 */
import type { DocumentLimits } from '../limits.js';
import type { ExtractedBlock, ExtractedPage, OcrOptions, OcrPageResult, PdfPageOcr } from '../types.js';
import type { PdfDocument } from './pdfjs-loader.js';

/** What the hook reads and fills of a reader's output (structurally the PdfPages of extract/pdf). */
export interface PagesWithOcr {
  layouts: ReadonlyArray<{ page: number; needsOcr: boolean }>;
  warnings: string[];
  ocr?: OcrPageResult[];
}

/** OCRs page `n` when its layout (the last one read) says it needs it. One bad page only costs a warning. */
export async function ocrPageWithoutText(
  doc: PdfDocument,
  out: PagesWithOcr,
  n: number,
  ocr: OcrOptions,
  readPage: PdfPageOcr,
  limits?: DocumentLimits,
): Promise<void> {
  const layout = out.layouts[out.layouts.length - 1];
  if (!layout || layout.page !== n || !layout.needsOcr) return;
  try {
    const result = await readPage(doc, n, { lang: ocr.lang, dpi: ocr.dpi ?? 300, limits });
    (out.ocr ??= []).push(result);
  } catch (err) {
    // Missing language data fails every page alike: that is the job's error, not a page's warning.
    if ((err as { code?: unknown }).code === 'OCR_LANGUAGE_MISSING') throw err;
    out.warnings.push(`page ${n}: OCR failed (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The OCR results of all parts, by page. */
function byPage(parts: ReadonlyArray<{ ocr?: OcrPageResult[] }>): Map<number, OcrPageResult> {
  return new Map(parts.flatMap((p) => p.ocr ?? []).map((r) => [r.page.page, r]));
}

/**
 * Text blocks (in reading order, page by page) with each OCRed page's blocks inserted where the page
 * belongs: before the first text block of a later page.
 */
export function withOcrBlocks(
  blocks: ExtractedBlock[],
  parts: ReadonlyArray<{ ocr?: OcrPageResult[] }>,
): ExtractedBlock[] {
  const ocr = [...byPage(parts).values()].sort((a, b) => a.page.page - b.page.page);
  if (ocr.length === 0) return blocks;
  const out: ExtractedBlock[] = [];
  let i = 0;
  for (const r of ocr) {
    while (i < blocks.length && (blocks[i] as ExtractedBlock).page <= r.page.page)
      out.push(blocks[i++] as ExtractedBlock);
    out.push(...r.blocks);
  }
  while (i < blocks.length) out.push(blocks[i++] as ExtractedBlock);
  return out;
}

/** Notes on each OCRed page which language data was used, its confidence and the turn it was read at. */
export function withOcrPages(pages: ExtractedPage[], parts: ReadonlyArray<{ ocr?: OcrPageResult[] }>): ExtractedPage[] {
  const ocr = byPage(parts);
  return pages.map((p) => {
    const r = ocr.get(p.page);
    return r ? { ...p, ocr: r.page.ocr } : p;
  });
}

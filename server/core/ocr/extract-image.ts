/**
 * Image documents (PNG, JPEG, WebP, TIFF including multi-page): every page is OCRed, giving the same
 * result shape as the other extractors, with each page noting the language data used.
 */
import { checkPageCount, DEFAULT_LIMITS } from '../extract/limits.js';
import type { ExtractedBlock, ExtractedPage, ExtractionResult, ExtractOptions } from '../extract/types.js';
import { imagePageCount, ocrImage } from './ocr-page.js';
import { DEFAULT_OCR_LANG } from './tesseract.js';

export async function extractImage(data: Uint8Array, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const total = imagePageCount(data);
  checkPageCount(total, limits);
  const lang = opts.ocr?.lang ?? DEFAULT_OCR_LANG;
  const blocks: ExtractedBlock[] = [];
  const pages: ExtractedPage[] = [];
  const warnings: string[] = [];
  for (let index = 0; index < total; index++) {
    const r = await ocrImage(data, { lang, index, limits });
    blocks.push(...r.blocks);
    // Shown as stored: the page image and the boxes are both of the pixels as decoded, never turned.
    pages.push({ ...r.page, rotation: 0 });
    if (r.blocks.length === 0) warnings.push(`page ${index + 1}: OCR found no text`);
    opts.onProgress?.(index + 1, total);
  }
  const result: ExtractionResult = { format: 'image', total_pages: total, pages, blocks, warnings };
  const title = blocks.find((b) => b.type === 'heading' && b.heading_level === 1)?.text;
  if (title) result.title = title;
  return result;
}

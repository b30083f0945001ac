import { readFile } from 'node:fs/promises';
import { extractDocx, extractHtml, extractMarkdown, extractText, decodeText } from './extract/flow/index.js';
import { extractPdf } from './extract/pdf/index.js';
import { extractCsv } from './extract/office/csv.js';
import { extractPptx } from './extract/office/pptx.js';
import { extractXlsx } from './extract/office/xlsx.js';
import { extractImage } from './ocr/extract-image.js';
import { ocrOpenPdfPage } from './ocr/ocr-page.js';
import { checkParseSize } from './extract/heap-guard.js';
import type { DocumentFormat, ExtractionResult, ExtractOptions } from './extract/types.js';

/** Heap the flow parsers take per byte of input (measured on 8 MB files of short paragraphs, with margin). */
const PARSE_HEAP_PER_BYTE = { html: 16, markdown: 24, text: 6 } as const;

/**
 * Reads a stored original and runs the reader of its (already sniffed) format: an extractor, or OCR for an
 * image. It sits above both folders, which it joins, so that neither imports the other's entry points.
 */
export async function extractDocument(
  path: string,
  format: DocumentFormat,
  opts: ExtractOptions = {},
): Promise<ExtractionResult> {
  const data = new Uint8Array(await readFile(path));
  let result: ExtractionResult;
  switch (format) {
    case 'pdf':
      return extractPdf(data, { pageOcr: ocrOpenPdfPage, ...opts });
    case 'image':
      return extractImage(data, opts);
    case 'docx':
      result = await extractDocx(data, opts.limits);
      break;
    case 'xlsx':
      result = await extractXlsx(data, opts.limits);
      break;
    case 'csv':
      result = await extractCsv(data, opts.limits);
      break;
    case 'pptx':
      result = await extractPptx(data, opts.limits, opts.onProgress);
      break;
    case 'html':
      checkParseSize(data.length, PARSE_HEAP_PER_BYTE.html, 'the HTML');
      result = extractHtml(decodeText(data));
      break;
    case 'markdown':
      checkParseSize(data.length, PARSE_HEAP_PER_BYTE.markdown, 'the Markdown');
      result = extractMarkdown(decodeText(data));
      break;
    case 'text':
      checkParseSize(data.length, PARSE_HEAP_PER_BYTE.text, 'the text');
      result = extractText(decodeText(data));
      break;
  }
  opts.onProgress?.(result.total_pages, result.total_pages);
  return result;
}

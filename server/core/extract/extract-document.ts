import { readFile } from 'node:fs/promises';
import { extractDocx, extractHtml, extractMarkdown, extractText, decodeText } from './flow/index.js';
import { extractPdf } from './pdf/index.js';
import { extractImage } from '../ocr/extract-image.js';
import type { DocumentFormat, ExtractionResult, ExtractOptions } from './types.js';

/** Reads a stored original and runs the extractor for its (already sniffed) format. */
export async function extractDocument(path: string, format: DocumentFormat, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  const data = new Uint8Array(await readFile(path));
  let result: ExtractionResult;
  switch (format) {
    case 'pdf':
      return extractPdf(data, opts);
    case 'image':
      return extractImage(data, opts);
    case 'docx':
      result = await extractDocx(data);
      break;
    case 'html':
      result = extractHtml(decodeText(data));
      break;
    case 'markdown':
      result = extractMarkdown(decodeText(data));
      break;
    case 'text':
      result = extractText(decodeText(data));
      break;
  }
  opts.onProgress?.(result.total_pages, result.total_pages);
  return result;
}

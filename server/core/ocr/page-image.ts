/**
 * A page as the reviewer sees it: a PDF page rendered by pdf.js, or an image document's page, scaled to a
 * width in pixels and encoded as PNG. Runs in a pool worker (pdf.js and canvas are too heavy for the HTTP
 * thread); the HTTP side caches the bytes on disk.
 */
import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';

import { DEFAULT_LIMITS, type DocumentLimits } from '../extract/limits.js';
import { openPdf } from '../extract/pdf/pdfjs-loader.js';
import type { DocumentFormat } from '../extract/types.js';
import { checkImageLimits } from './image-size.js';
import { imageRaster } from './ocr-page.js';
import { isIntactPng } from './png-check.js';
import { encodePng, renderOpenPdfPage } from './render-page.js';
import { DEFAULT_OCR_LANG } from './tesseract.js';
import { isTiff, tiffPageOffsets } from './tiff-pages.js';

function pageMissing(page: number, pages: number): Error {
  return Object.assign(new Error(`page ${page} does not exist (the document has ${pages})`), {
    code: 'PAGE_NOT_FOUND',
  });
}

async function pdfPagePng(data: Uint8Array, page: number, width: number, limits: DocumentLimits): Promise<Uint8Array> {
  const { doc } = await openPdf(data, limits);
  try {
    if (page > doc.numPages) throw pageMissing(page, doc.numPages);
    const p = await doc.getPage(page);
    const pageWidth = p.getViewport({ scale: 1 }).width;
    p.cleanup();
    return (await renderOpenPdfPage(doc, page, { dpi: (72 * width) / pageWidth, maxPixels: limits.maxPagePixels })).png;
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/** Draws the source scaled to `width` on white (transparent PNGs would show black in some viewers). */
async function scaledPng(source: Image | Canvas, width: number): Promise<Uint8Array> {
  const height = Math.max(1, Math.round((source.height * width) / source.width));
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(source, 0, 0, width, height);
  return encodePng(canvas);
}

async function imagePagePng(
  data: Uint8Array,
  page: number,
  width: number,
  limits: DocumentLimits,
): Promise<Uint8Array> {
  const pages = isTiff(data) ? tiffPageOffsets(data).length : 1;
  if (page > pages) throw pageMissing(page, pages);
  checkImageLimits(data, page - 1, limits);
  // An intact PNG keeps its colours; anything else is decoded by leptonica (grey), never by canvas's
  // decoder, which crashes the process on a file it cannot read (see png-check.ts).
  if (isIntactPng(data))
    return scaledPng(await loadImage(Buffer.from(data.buffer, data.byteOffset, data.byteLength)), width);
  const grey = await imageRaster(data, page - 1, DEFAULT_OCR_LANG, limits);
  const full = createCanvas(grey.width, grey.height);
  const ctx = full.getContext('2d');
  const px = ctx.createImageData(grey.width, grey.height);
  for (let i = 0; i < grey.data.length; i++) {
    const v = grey.data[i] ?? 255;
    px.data[i * 4] = v;
    px.data[i * 4 + 1] = v;
    px.data[i * 4 + 2] = v;
    px.data[i * 4 + 3] = 255;
  }
  ctx.putImageData(px, 0, 0);
  return scaledPng(full, width);
}

/** PNG of page `page` (1-based) `width` pixels wide; only PDFs and images have pages to show. */
export async function pageImagePng(
  data: Uint8Array,
  format: DocumentFormat,
  page: number,
  width: number,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<Uint8Array> {
  if (format === 'pdf') return pdfPagePng(data, page, width, limits);
  if (format === 'image') return imagePagePng(data, page, width, limits);
  throw Object.assign(new Error(`a ${format} document has no page images`), { code: 'INVALID_STATE' });
}

/**
 * OCR of one PDF page (or a region of it) and of image files (PNG, JPEG, WebP, TIFF including multi-page),
 * producing the extractor's block and page shapes. Runs inside a pool worker thread: the tesseract engine is
 * the thread's own (see tesseract.ts), so calls on one thread are serialised by tesseract.js anyway.
 */
import { DEFAULT_LIMITS, type DocumentLimits } from '../extract/limits.js';
import { openPdf, type PdfDocument } from '../extract/pdf/pdfjs-loader.js';
import type { BBox, OcrPageResult } from '../extract/types.js';
import { ocrBlocks } from './ocr-blocks.js';
import type { TessBox } from './ocr-lines.js';
import { cropGrey, decodeToGrey, type GreyRaster, type QuarterTurn } from './raster.js';
import { splitLanguages } from './ocr-languages.js';
import { recognizeInLanguages, type Recognition } from './recognize.js';
import { imageDpi } from './image-dpi.js';
import { checkImageLimits } from './image-size.js';
import { isIntactPng } from './png-check.js';
import { renderOpenPdfPageGrey } from './render-page.js';
import { assertLanguagesInstalled, DEFAULT_OCR_LANG, getOcrEngine } from './tesseract.js';
import { isTiff, tiffPage, tiffPageOffsets } from './tiff-pages.js';

export type { OcrPageResult };

export interface OcrPdfOptions {
  /** Render resolution (default 300). */
  dpi?: number;
  lang?: string;
  /** OCR only this region of the page (points, top-left origin). */
  bbox?: BBox;
  detectRotation?: boolean;
  /** The render's pixels (`maxPagePixels`) and, when the document is opened here, the rest. */
  limits?: DocumentLimits;
}

export interface OcrImageOptions {
  lang?: string;
  /** Resolution the image was scanned at, for its size in points (default: what the file says, else 300). */
  dpi?: number;
  /** OCR only this region of the page (points at `dpi`, top-left origin). */
  bbox?: BBox;
  detectRotation?: boolean;
  /** Pixels of the image (refused before decoding beyond `maxImagePixels`). */
  limits?: DocumentLimits;
}

interface Frame {
  page: number;
  dpi: number;
  /** The image as cut from the page, before any turn: the frame boxes are mapped back to. */
  width: number;
  height: number;
  offsetXPt: number;
  offsetYPt: number;
  pageWidthPt: number;
  pageHeightPt: number;
}

/** Undoes the clockwise quarter-turn: a box in the turned image to the same box in the original image. */
function unturn(b: TessBox, turn: QuarterTurn, w: number, h: number): TessBox {
  switch (turn) {
    case 0:
      return b;
    case 90:
      return { x0: b.y0, y0: h - b.x1, x1: b.y1, y1: h - b.x0 };
    case 180:
      return { x0: w - b.x1, y0: h - b.y1, x1: w - b.x0, y1: h - b.y0 };
    case 270:
      return { x0: w - b.y1, y0: b.x0, x1: w - b.y0, y1: b.x1 };
  }
}

/**
 * Boxes go back to the page as it is stored (not as it was read), so a reviewer's highlight lands on the
 * page image they see; then pixels to points, clamped because a word's box can overhang the cut edge.
 */
function toPointsFn(frame: Frame, turn: QuarterTurn): (b: TessBox) => BBox {
  const k = 72 / frame.dpi;
  const clampX = (v: number): number => Math.min(frame.pageWidthPt, Math.max(0, v));
  const clampY = (v: number): number => Math.min(frame.pageHeightPt, Math.max(0, v));
  const round = (v: number): number => Math.round(v * 100) / 100;
  return (box) => {
    const b = unturn(box, turn, frame.width, frame.height);
    return {
      x0: round(clampX(frame.offsetXPt + b.x0 * k)),
      y0: round(clampY(frame.offsetYPt + b.y0 * k)),
      x1: round(clampX(frame.offsetXPt + b.x1 * k)),
      y1: round(clampY(frame.offsetYPt + b.y1 * k)),
    };
  };
}

/** The language that decodes images and finds a page's turn: the first of the job's. */
const primaryLanguage = (lang: string): string => splitLanguages(lang)[0] ?? DEFAULT_OCR_LANG;

/** What reading a page without ink finds (the thread's OCR engine is not even started for it). */
const NO_INK: Recognition = {
  blocks: [],
  confidence: 0,
  turn: 0,
  image: { width: 0, height: 0, data: new Uint8Array(0) },
};

/** `raster` null: the page has no ink. */
async function ocrRaster(
  raster: GreyRaster | null,
  frame: Frame,
  lang: string,
  detectRotation?: boolean,
): Promise<OcrPageResult> {
  // Each language reads on its own engine (see merge-readings.ts for why not tesseract's combined one).
  const engines = splitLanguages(lang).map((code) => () => getOcrEngine(code));
  const rec = raster ? await recognizeInLanguages(engines, raster, { dpi: frame.dpi, detectRotation }) : NO_INK;
  // Each block names the language data it was read with (a re-read may use another one).
  const blocks = ocrBlocks(rec.blocks, {
    page: frame.page,
    toPoints: toPointsFn(frame, rec.turn),
    imageHeight: rec.image.height,
  }).map((b) => ({
    ...b,
    language: lang,
  }));
  return {
    blocks,
    dpi: Math.round(frame.dpi),
    page: {
      page: frame.page,
      width: frame.pageWidthPt,
      height: frame.pageHeightPt,
      needs_ocr: true,
      ocr: { lang, confidence: Math.round(rec.confidence * 10) / 10, rotation: rec.turn },
    },
  };
}

/** OCRs page `pageNumber` (1-based) of an open document: for callers walking many pages of one PDF. */
export async function ocrOpenPdfPage(
  doc: PdfDocument,
  pageNumber: number,
  opts: OcrPdfOptions = {},
): Promise<OcrPageResult> {
  const lang = opts.lang ?? DEFAULT_OCR_LANG;
  // Fail on a missing language before spending a render on the page.
  assertLanguagesInstalled(lang);
  const { grey, ...r } = await renderOpenPdfPageGrey(doc, pageNumber, {
    dpi: opts.dpi ?? 300,
    region: opts.bbox,
    maxPixels: (opts.limits ?? DEFAULT_LIMITS).maxPagePixels,
  });
  const frame: Frame = { page: pageNumber, ...r };
  return ocrRaster(grey, frame, lang, opts.detectRotation);
}

/** Opens the PDF and OCRs one page (1-based). */
export async function ocrPdfPage(
  data: Uint8Array,
  pageNumber: number,
  opts: OcrPdfOptions = {},
): Promise<OcrPageResult> {
  const { doc } = await openPdf(data, opts.limits);
  try {
    return await ocrOpenPdfPage(doc, pageNumber, opts);
  } finally {
    await doc.destroy();
  }
}

/** Number of pages in an image file: a TIFF's IFD count, 1 for every other format. */
export function imagePageCount(data: Uint8Array): number {
  return isTiff(data) ? Math.max(1, tiffPageOffsets(data).length) : 1;
}

/**
 * Decodes an image page to grey. Only an intact PNG goes to @napi-rs/canvas (fast, native), whose decoder
 * crashes the process on a file it cannot read (see png-check.ts). Everything else, TIFF pages included,
 * is decoded by leptonica inside the OCR engine (WebAssembly: a bad file is an error there), which hands the
 * pixels back as a PNG it wrote itself.
 */
export async function imageRaster(
  data: Uint8Array,
  index: number,
  lang: string,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<GreyRaster> {
  // Before any decoder: they allocate whatever the header asks for.
  checkImageLimits(data, index, limits);
  if (index === 0 && isIntactPng(data)) return decodeToGrey(data);
  const engine = await getOcrEngine(primaryLanguage(lang));
  const page = isTiff(data) ? tiffPage(data, index) : data;
  let url: unknown;
  try {
    url = (await engine.worker.recognize(Buffer.from(page), {}, { imageGrey: true, blocks: false, text: false })).data
      .imageGrey;
  } catch {
    url = null;
  }
  if (typeof url !== 'string' || !url.startsWith('data:image/png;base64,')) {
    throw Object.assign(new Error('Not a readable image (PNG, JPEG, TIFF or WebP)'), { code: 'OCR_IMAGE_INVALID' });
  }
  return decodeToGrey(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
}

/** OCRs one page (0-based `index`, for multi-page TIFF) of an image file; the result is page `index + 1`. */
export async function ocrImage(
  data: Uint8Array,
  opts: OcrImageOptions & { index?: number } = {},
): Promise<OcrPageResult> {
  const lang = opts.lang ?? DEFAULT_OCR_LANG;
  const index = opts.index ?? 0;
  // A refused image does not wait for the OCR engine to start.
  checkImageLimits(data, index, opts.limits ?? DEFAULT_LIMITS);
  assertLanguagesInstalled(lang);
  await getOcrEngine(primaryLanguage(lang));
  let raster: GreyRaster;
  try {
    raster = await imageRaster(data, index, lang, opts.limits);
  } catch (err) {
    if ((err as { code?: unknown }).code) throw err;
    throw Object.assign(new Error(`Not a readable image: ${err instanceof Error ? err.message : String(err)}`), {
      code: 'OCR_IMAGE_INVALID',
    });
  }
  const dpi = opts.dpi ?? imageDpi(data, index) ?? 300;
  const pageWidthPt = (raster.width * 72) / dpi;
  const pageHeightPt = (raster.height * 72) / dpi;
  const region = opts.bbox ? imageRegion(opts.bbox, pageWidthPt, pageHeightPt) : null;
  const k = dpi / 72;
  const cut = region ? cropGrey(raster, region.x0 * k, region.y0 * k, region.x1 * k, region.y1 * k) : raster;
  const frame: Frame = {
    page: index + 1,
    dpi,
    width: cut.width,
    height: cut.height,
    offsetXPt: region ? Math.floor(region.x0 * k) / k : 0,
    offsetYPt: region ? Math.floor(region.y0 * k) / k : 0,
    pageWidthPt,
    pageHeightPt,
  };
  return ocrRaster(cut, frame, lang, opts.detectRotation);
}

/** The region clamped to the page; an empty one is the caller's mistake. */
function imageRegion(b: BBox, w: number, h: number): BBox {
  const r = { x0: Math.max(0, b.x0), y0: Math.max(0, b.y0), x1: Math.min(w, b.x1), y1: Math.min(h, b.y1) };
  if (r.x1 - r.x0 < 1 || r.y1 - r.y0 < 1) {
    throw Object.assign(new Error('OCR region lies outside the page or is empty'), { code: 'OCR_REGION_INVALID' });
  }
  return r;
}

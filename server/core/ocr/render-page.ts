/**
 * Rendering a PDF page to a greyscale-ready PNG for OCR: pdf.js (loaded through the extractor's loader, which
 * restores the built-ins its legacy build replaces) drawing on an @napi-rs/canvas canvas.
 */
import { createCanvas, type Canvas } from '@napi-rs/canvas';

import { DEFAULT_LIMITS, type DocumentLimits } from '../extract/limits.js';
import { openPdf, type PdfDocument, type PdfPage } from '../extract/pdf/pdfjs-loader.js';
import type { BBox } from '../extract/types.js';
import { canvasToGrey, type GreyRaster } from './raster.js';

/** Where a render sits on its page; the pixels come separately (a PNG, or grey bytes for OCR). */
export interface RenderFrame {
  /** Image size in pixels. */
  width: number;
  height: number;
  /** Size of the whole page in PDF points (even when only a region was rendered). */
  pageWidthPt: number;
  pageHeightPt: number;
  /** Top-left corner of the rendered region in points (0,0 for the whole page). */
  offsetXPt: number;
  offsetYPt: number;
  dpi: number;
}

export interface RenderedPage extends RenderFrame {
  png: Buffer;
}

export interface RenderOptions {
  dpi?: number;
  /** Render only this region of the page (points, top-left origin), clamped to the page. */
  region?: BBox;
  /**
   * Beyond this many pixels a render is refused (OCR_PAGE_TOO_LARGE): a poster-sized page at 300 dpi would
   * need gigabytes of canvas memory in a worker thread (A0 at 300 dpi is ~140 Mpx). Default: the setting
   * max_page_pixels's default.
   */
  maxPixels?: number;
}

/** Renders one page (1-based) of an already-open document, so a multi-page scan is parsed once. */
export async function renderOpenPdfPage(
  doc: PdfDocument,
  pageNumber: number,
  options: RenderOptions = {},
): Promise<RenderedPage> {
  return withPage(doc, pageNumber, async (page) => {
    const plan = planRender(page, pageNumber, options);
    // PNG: lossless, and read by leptonica inside tesseract.js as well as by the native CLI in the bench.
    return { ...plan.frame, png: encodePng(await draw(page, plan)) };
  });
}

/**
 * The same render as grey bytes, for OCR in this thread: encoding a 300 dpi A4 page to PNG and decoding
 * it again would cost more CPU than reading it. A page without ink gives `grey: null`: it is drawn at
 * 72 dpi first, and only a page with a mark there is drawn again at full size (the second draw reuses
 * the page's operator list and decoded images), so a blank page costs a thumbnail, not a 300 dpi render.
 */
export async function renderOpenPdfPageGrey(
  doc: PdfDocument,
  pageNumber: number,
  options: RenderOptions = {},
): Promise<RenderFrame & { grey: GreyRaster | null }> {
  return withPage(doc, pageNumber, async (page) => {
    const plan = planRender(page, pageNumber, options);
    const probe = planRender(page, pageNumber, { ...options, dpi: Math.min(PROBE_DPI, plan.frame.dpi) });
    if (!hasInk(canvasToGrey(await draw(page, probe)), plan.frame.dpi)) return { ...plan.frame, grey: null };
    return { ...plan.frame, grey: canvasToGrey(await draw(page, plan)) };
  });
}

/** Resolution of the ink probe. */
const PROBE_DPI = 72;

/**
 * Whether a probe shows any ink that could count at `dpi`. A pixel of the full render dark enough to count
 * (under 128, as isBlank has it) covers (72 / dpi)^2 of a probe pixel, so it takes at least that share of
 * 127 levels off it (7.3 at 300 dpi): a probe with no pixel that dark has no such pixel at full size either.
 */
function hasInk(probe: GreyRaster, dpi: number): boolean {
  const white = 255 - 127 * Math.min(1, PROBE_DPI / dpi) ** 2;
  for (let i = 0; i < probe.data.length; i++) if ((probe.data[i] ?? 255) < white) return true;
  return false;
}

async function withPage<T>(doc: PdfDocument, pageNumber: number, use: (page: PdfPage) => Promise<T>): Promise<T> {
  const page = await doc.getPage(pageNumber);
  try {
    return await use(page);
  } finally {
    page.cleanup();
  }
}

interface RenderPlan {
  frame: RenderFrame;
  scale: number;
  region: BBox;
}

function planRender(page: PdfPage, pageNumber: number, options: RenderOptions): RenderPlan {
  const dpi = options.dpi ?? 300;
  const base = page.getViewport({ scale: 1 });
  const scale = dpi / 72;
  const region = clampRegion(options.region, base.width, base.height);
  const width = Math.max(1, Math.round((region.x1 - region.x0) * scale));
  const height = Math.max(1, Math.round((region.y1 - region.y0) * scale));
  const maxPixels = options.maxPixels ?? DEFAULT_LIMITS.maxPagePixels;
  if (width * height > maxPixels) {
    const limit = `${Math.round(maxPixels / 1e6)} Mpx, setting max_page_pixels`;
    throw Object.assign(
      new Error(`Page ${pageNumber} is too large to render at ${dpi} dpi (${width}x${height} px, over ${limit})`),
      {
        code: 'OCR_PAGE_TOO_LARGE',
      },
    );
  }
  return {
    frame: {
      width,
      height,
      pageWidthPt: base.width,
      pageHeightPt: base.height,
      offsetXPt: region.x0,
      offsetYPt: region.y0,
      dpi,
    },
    scale,
    region,
  };
}

async function draw(page: PdfPage, { frame, scale, region }: RenderPlan): Promise<Canvas> {
  const canvas = createCanvas(frame.width, frame.height);
  const ctx = canvas.getContext('2d');
  // Scans often have transparent backgrounds around the image; OCR wants white paper, not black.
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, frame.width, frame.height);
  await page.render({
    canvas: canvas as unknown as HTMLCanvasElement,
    canvasContext: ctx as unknown as CanvasRenderingContext2D,
    viewport: page.getViewport({ scale }),
    // Shifting the whole page draws only the region onto the (smaller) canvas.
    transform: [1, 0, 0, 1, -region.x0 * scale, -region.y0 * scale],
    background: '#ffffff',
  }).promise;
  return canvas;
}

/**
 * The canvas as PNG, encoded on this thread. Never `canvas.encode()`: @napi-rs/canvas (0.1.100) encodes on
 * libuv's thread pool from a bare pointer to the canvas's pixels and holds no reference to the canvas, so a
 * canvas nobody refers to any more (as in `(await draw()).encode('png')`) can be collected, and its pixels
 * freed, while the encoder still reads them: the whole process dies of SIGSEGV or a skia abort (SIGILL).
 * Rendering already runs in a pool worker, so encoding here blocks no one, and keeps libuv's four threads,
 * which every worker's file reads share, free.
 */
export function encodePng(canvas: Canvas): Buffer {
  return canvas.encodeSync('png');
}

/** Opens the PDF, renders one page (1-based) and closes it again. */
export async function renderPdfPage(
  data: Uint8Array,
  pageNumber: number,
  dpi = 300,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<RenderedPage> {
  const { doc } = await openPdf(data, limits);
  try {
    return await renderOpenPdfPage(doc, pageNumber, { dpi, maxPixels: limits.maxPagePixels });
  } finally {
    await doc.destroy();
  }
}

function clampRegion(region: BBox | undefined, w: number, h: number): BBox {
  if (!region) return { x0: 0, y0: 0, x1: w, y1: h };
  const x0 = Math.min(Math.max(0, region.x0), w);
  const y0 = Math.min(Math.max(0, region.y0), h);
  const x1 = Math.min(Math.max(x0, region.x1), w);
  const y1 = Math.min(Math.max(y0, region.y1), h);
  if (x1 - x0 < 1 || y1 - y0 < 1) {
    throw Object.assign(new Error('OCR region lies outside the page or is empty'), { code: 'OCR_REGION_INVALID' });
  }
  return { x0, y0, x1, y1 };
}

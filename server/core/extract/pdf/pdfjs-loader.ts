/**
 * Loading pdf.js (legacy build: the modern one needs newer Node features than our Node 20 floor)
 * and opening a document with settings that are safe inside a worker thread with no DOM.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

import { installHeapGuard, resetHeapGuard } from '../heap-guard.js';
import { assertInflateBudget, installInflateGuard, startInflateBudget } from '../inflate-budget.js';
import { checkPageCount, DEFAULT_LIMITS, type DocumentLimits } from '../limits.js';
import { useBufferedDecompression } from './buffered-decompression.js';
import { PdfExtractError, toPdfError } from './errors.js';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
export type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/** Opening is lazy in pdf.js (pages load on demand), so this only guards against a stuck parser. */
const OPEN_TIMEOUT_MS = 60_000;

let pdfjsPromise: Promise<PdfJs> | undefined;

/**
 * The legacy build bundles core-js, which on Node 20 replaces a few built-ins of the whole thread
 * with spec-pedantic polyfills: Array.prototype.push (an edge case of non-writable lengths) and
 * JSON.stringify / JSON.parse (for JSON.rawJSON). They are slow (stringify ~10x, and pdf.js pushes
 * every glyph), and neither pdf.js nor the rest of the worker needs what they add, so the native
 * functions go back once pdf.js has loaded. The polyfills that only add missing methods
 * (Promise.withResolvers, Map.prototype.getOrInsert, ...) stay: pdf.js relies on those.
 */
const natives = { push: Array.prototype.push, stringify: JSON.stringify, parse: JSON.parse };

function restoreNatives(): void {
  const put = (target: object, key: string, value: unknown): void => {
    const desc = Object.getOwnPropertyDescriptor(target, key);
    if (desc && desc.value !== value && desc.configurable) Object.defineProperty(target, key, { ...desc, value });
  };
  put(Array.prototype, 'push', natives.push);
  put(JSON, 'stringify', natives.stringify);
  put(JSON, 'parse', natives.parse);
}

/**
 * The "worker" half of pdf.js. In Node pdf.js runs it in the same thread (a fake worker) and would
 * import it on the first getDocument; importing it up front lets its own core-js copy run now,
 * before the natives are put back. (A variable specifier: the module ships without types.)
 */
const PDFJS_WORKER = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/** Imported on first use so that processes which never see a PDF do not pay for pdf.js. */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= Promise.all([
    import('pdfjs-dist/legacy/build/pdf.mjs'),
    import(PDFJS_WORKER) as Promise<unknown>,
  ]).then(([mod]) => {
    restoreNatives();
    useBufferedDecompression();
    installInflateGuard();
    installHeapGuard();
    return mod;
  });
  return pdfjsPromise;
}

interface AssetDirs {
  standardFonts: string;
  cMaps: string;
  wasm: string;
}
let assetDirs: AssetDirs | undefined;

/**
 * pdf.js reads these with fs in Node, so they are plain paths; it insists on a trailing slash.
 * Resolved from the installed package so it works from sources, tests and the esbuild bundle alike.
 */
function pdfjsAssetDirs(): AssetDirs {
  if (!assetDirs) {
    const require = createRequire(import.meta.url);
    const root = path.dirname(require.resolve('pdfjs-dist/package.json'));
    const dir = (name: string): string => path.join(root, name) + path.sep;
    assetDirs = { standardFonts: dir('standard_fonts'), cMaps: dir('cmaps'), wasm: dir('wasm') };
  }
  return assetDirs;
}

function hasPdfHeader(data: Uint8Array): boolean {
  // The spec wants %PDF- at offset 0, but readers (and pdf.js) accept junk before it within 1 KB.
  const limit = Math.min(data.length, 1024) - 5;
  for (let i = 0; i <= limit; i++) {
    if (
      data[i] === 0x25 &&
      data[i + 1] === 0x50 &&
      data[i + 2] === 0x44 &&
      data[i + 3] === 0x46 &&
      data[i + 4] === 0x2d
    ) {
      return true;
    }
  }
  return false;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Opens a PDF within `limits`: it starts this thread's decompression budget and heap guard for the
 * document (see inflate-budget.ts, heap-guard.ts), has pdf.js leave out images of more than twice
 * `maxImagePixels` pixels, and refuses a document of more than `maxPages` pages before any page is read.
 */
export async function openPdf(
  data: Uint8Array,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<{ pdfjs: PdfJs; doc: PdfDocument }> {
  if (data.length === 0) throw new PdfExtractError('PDF_INVALID', 'Not a PDF: the file is empty');
  if (!hasPdfHeader(data)) {
    throw new PdfExtractError('PDF_INVALID', 'Not a PDF: no %PDF- header in the first 1 KB');
  }
  const pdfjs = await loadPdfJs();
  const dirs = pdfjsAssetDirs();
  startInflateBudget(limits);
  resetHeapGuard();
  const task = pdfjs.getDocument({
    // pdf.js takes ownership of (and may detach) the buffer it is given, and refuses Node Buffers:
    // a private copy keeps the caller's bytes intact.
    data: new Uint8Array(data),
    standardFontDataUrl: dirs.standardFonts,
    cMapUrl: dirs.cMaps,
    cMapPacked: true,
    wasmUrl: dirs.wasm,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    isOffscreenCanvasSupported: false,
    enableXfa: false,
    // An image inside a PDF is drawn scaled into a page render (whose own pixels max_page_pixels bounds), so
    // it may be larger than an image document's page: a 600 dpi A4 scan (35 Mpx) must not vanish from its
    // page. Beyond twice max_image_pixels pdf.js leaves the image out rather than decoding it.
    maxImageSize: 2 * limits.maxImagePixels,
    // Warnings about odd fonts are routine in real PDFs; they would flood the worker's stderr.
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const doc = await withTimeout(task.promise, OPEN_TIMEOUT_MS, () => {
      return new PdfExtractError('PDF_INVALID', `Not a readable PDF: opening took over ${OPEN_TIMEOUT_MS / 1000} s`);
    });
    restoreNatives();
    assertInflateBudget();
    if (doc.numPages < 1) throw new PdfExtractError('PDF_INVALID', 'Not a readable PDF: it has no pages');
    checkPageCount(doc.numPages, limits);
    return { pdfjs, doc };
  } catch (err) {
    await task.destroy().catch(() => undefined);
    // pdf.js reports a refused stream as a damaged document: the budget knows better.
    assertInflateBudget();
    throw isLimitError(err) ? err : toPdfError(err);
  }
}

function isLimitError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    code === 'TOO_MANY_PAGES' ||
    code === 'DECOMPRESSED_TOO_LARGE' ||
    code === 'IMAGE_TOO_LARGE' ||
    code === 'OUT_OF_MEMORY'
  );
}

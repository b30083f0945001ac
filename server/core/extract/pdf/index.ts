/**
 * PDF extraction: pdf.js text layer -> lines -> regions in reading order -> typed blocks.
 *
 * Runs inside a Piscina worker thread (plain Node, no DOM). Pages are read one at a time and
 * released right away (page.cleanup), so memory grows with the extracted text, not with the PDF's
 * page count; decisions that need the whole document (body font size, running heads, heading
 * levels, list depths) are made afterwards on the compact per-page layouts.
 */
import type { ExtractedBlock, ExtractedPage, ExtractionResult, ExtractOptions, OcrPageResult } from '../types.js';
import { pageBlocks, type PendingBlock } from './assemble.js';
import { docStats, headingLevels, listLevels } from './classify.js';
import { PdfExtractError } from './errors.js';
import { checkHeap } from '../heap-guard.js';
import { assertInflateBudget, shareInflateBudget } from '../inflate-budget.js';
import { FontRegistry } from './fonts.js';
import { findFigures, largestImageShare, paintedGraphics } from './graphics.js';
import { layoutPage } from './layout.js';
import type { PageLayout } from './model.js';
import { openPdf, withTimeout, type PdfDocument, type PdfJs } from './pdfjs-loader.js';
import { multiply, readPageText, styleRuns, unturnBox, type PageText } from './page-text.js';
import { markRunningHeads } from './running-heads.js';
import { ocrPageWithoutText, withOcrBlocks, withOcrPages } from './page-ocr.js';

export { PdfExtractError } from './errors.js';

/** Pages with fewer non-space characters than this have no usable text layer (scans). */
const MIN_PAGE_CHARS = 20;
/** Text covering less of the page than this (glyph boxes over page area) is sparse: maybe a stamped scan. */
const SPARSE_TEXT_SHARE = 0.02;
/** An image covering this much of a page with sparse text makes it a scan (figures leave margins). */
const SCAN_IMAGE_SHARE = 0.85;
/** A single page that takes longer is given up (and flagged for OCR) rather than stalling the job. */
const PAGE_TIMEOUT_MS = 60_000;
/** A caption label at the start of a text item: the page probably holds a figure worth locating. */
const FIGURE_LABEL_RE = /^\s*(?:figure|fig\.)\s*\d/i;

/** Pages from..to, 1-based, inclusive. */
interface PageRun {
  from: number;
  to: number;
}

/** State carried from page to page. */
interface DocState {
  /** Fonts named so far: how a page is styled does not depend on which pages came before (see readPage). */
  fonts: FontRegistry;
  /**
   * Column gutters seen so far in this run of pages, as x centres (a two-column paper keeps its gutter in
   * place): priors for the pages after, and so the one thing a page's layout takes from the pages before it.
   */
  gutters: number[];
}

async function readPage(pdfjs: PdfJs, doc: PdfDocument, n: number, state: DocState): Promise<PageLayout> {
  const { fonts } = state;
  const page = await doc.getPage(n);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const text = await readPageText(page, fonts);
    checkHeap();
    const layout: PageLayout = {
      page: n,
      width: text.width,
      height: text.height,
      viewRotation: viewRotation(page.rotate),
      rotation: text.rotation,
      frameWidth: text.frameWidth,
      frameHeight: text.frameHeight,
      needsOcr: text.chars < MIN_PAGE_CHARS,
      regions: [],
      figures: [],
    };
    if (layout.needsOcr) return layout;
    const sparse = textShare(text) < SPARSE_TEXT_SHARE;
    // The text layer names its fonts (page-text.ts); a font it leaves unnamed reaches commonObjs only
    // through an operator list, which costs about as much as the text itself: built only for pages that
    // bring such a font, that announce a figure we want to locate, or whose text is sparse. Every new font
    // is named on the first page that uses it, however little text it carries there, so that a reader
    // starting in the middle of the document styles a page exactly as one reading from the start.
    const unseen = [...text.fontIds].some((id) => !fonts.isResolved(id));
    const wantsFigures = text.runs.some((r) => FIGURE_LABEL_RE.test(r.text));
    if (unseen || wantsFigures || sparse) {
      const ops = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
      checkHeap();
      const toFrame = multiply(text.frameTransform, viewport.transform);
      const graphics =
        sparse || wantsFigures ? paintedGraphics(pdfjs, ops, toFrame, text.frameWidth, text.frameHeight) : undefined;
      // A scan with a little text laid over it (a stamp, a banner, a partial OCR layer) is read by OCR,
      // which sees that text in the image too.
      if (sparse && graphics && largestImageShare(graphics) >= SCAN_IMAGE_SHARE) {
        layout.needsOcr = true;
        return layout;
      }
      // Every font of the page is in commonObjs now, the minor ones included.
      for (const id of text.fontIds) {
        if (fonts.isResolved(id)) continue;
        if (page.commonObjs.has(id)) fonts.resolve(id, page.commonObjs.get(id));
        else fonts.markUnknown(id);
      }
      if (wantsFigures && graphics) layout.figures = findFigures(graphics);
    }
    const laid = layoutPage(styleRuns(text.runs, fonts), state.gutters);
    layout.regions = laid.regions;
    for (const g of laid.gutters) {
      if (!state.gutters.some((p) => Math.abs(p - g) < 3) && state.gutters.length < 8) state.gutters.push(g);
    }
    return layout;
  } finally {
    page.cleanup();
  }
}

/** Share of the page's frame covered by its upright text runs (width times font size each). */
function textShare(text: PageText): number {
  let area = 0;
  for (const r of text.runs) area += (r.x1 - r.x0) * r.size;
  return area / (text.frameWidth * text.frameHeight);
}

async function metadataTitle(doc: PdfDocument): Promise<string | undefined> {
  try {
    const meta = await doc.getMetadata();
    const info = meta.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
    // Producers fill Title with placeholders or the source file's name; those are no titles.
    const junk =
      /^(?:untitled|unknown|title|document\d*|slide \d+)$|\.(?:docx?|rtf|odt|pptx?|xlsx?|pdf|tex|dvi|ps|indd|qxd)$/i;
    const clean = title.replace(/^Microsoft (?:Word|PowerPoint|Excel) - /, '');
    if (clean && !junk.test(clean)) return clean;
  } catch {
    // Broken metadata is no reason to fail the extraction; fall back to the first heading.
  }
  return undefined;
}

function finish(pending: PendingBlock[], bodySize: number): ExtractedBlock[] {
  const level = headingLevels(pending.flatMap((b) => (b.headingStyle ? [b.headingStyle] : [])));
  // List depth is relative within one list (a run of consecutive items): its least indented
  // items are level 0, whatever other lists of the document do.
  // (Running heads between two pages of one list do not end it.)
  const depths = new Map<PendingBlock, number>();
  const lists: PendingBlock[][] = [];
  let open: PendingBlock[] | undefined;
  for (const b of pending) {
    if (b.listOffset !== undefined) {
      if (!open) lists.push((open = []));
      open.push(b);
    } else if (b.type !== 'header' && b.type !== 'footer') {
      open = undefined;
    }
  }
  for (const list of lists) {
    const depth = listLevels(
      list.map((b) => b.listOffset ?? 0),
      bodySize,
    );
    for (const b of list) depths.set(b, depth(b.listOffset ?? 0));
  }
  return pending.map((b) => {
    const out: ExtractedBlock = { type: b.type, text: b.text, page: b.page, bbox: roundBox(b.bbox) };
    if (b.headingStyle) out.heading_level = level(b.headingStyle);
    const depth = depths.get(b);
    if (depth !== undefined) out.indent_level = depth;
    if (b.table) out.table = b.table;
    return out;
  });
}

function roundBox(b: PendingBlock['bbox']): PendingBlock['bbox'] {
  const r = (v: number): number => Math.round(v * 100) / 100;
  return { x0: r(b.x0), y0: r(b.y0), x1: r(b.x1), y1: r(b.y1) };
}

/** The page layouts one reader made (in the order it read them); `assemblePdf` turns one or several into blocks. */
export interface PdfPages {
  total: number;
  layouts: PageLayout[];
  warnings: string[];
  /** Pages whose text could not be read at all. */
  failed: number;
  /** From the document's metadata (read with the first page only). */
  title?: string;
  /** OCR of the pages without a text layer, when the options asked for OCR. */
  ocr?: OcrPageResult[];
}

/**
 * Reads pages `from`..`to` (1-based, inclusive; the whole document by default) into layouts. Pages are
 * independent but for the font registry and column gutters, which each reader learns on its own, so
 * several workers can read parts of one document at once.
 */
export function readPdfPages(
  data: Uint8Array,
  range?: { from: number; to: number },
  opts: ExtractOptions = {},
): Promise<PdfPages> {
  return withOpenPdf(data, opts, (pdfjs, doc) => {
    const from = Math.max(1, range?.from ?? 1);
    const to = Math.min(doc.numPages, range?.to ?? doc.numPages);
    return readOpenPdfPages(pdfjs, doc, [{ from, to }], opts, Math.max(0, to - from + 1));
  });
}

/**
 * A PDF is shared among readers when it has at least this many pages. Each extra reader opens the
 * document and loads its fonts again, and a thread's first reading of a kind of document is its slowest:
 * on the fixture papers (2-44 pages) two readers took longer than one (bench:ingest with this set to 2 in a
 * scratch build, 2026-11-23: amsmath 245 -> 299 ms, zoo 168 -> 254 ms, the others alike or worse), while a
 * 500-page PDF gains from it (and in a scratch build sharing from 8 pages, 2026-11-25: amsmath 376-392
 * against 294-340 ms).
 * Readers style pages the same wherever they start, so the blocks do not depend on it.
 */
export const SHARE_MIN_PAGES = 64;

/**
 * Pages a reader of a shared PDF takes at a time. The readers take runs of this many pages from one counter
 * until none is left, so they end within about one run of each other however their threads are slowed (two
 * fixed halves of the 500-page bench file ended 50-260 ms apart in the server). Each run is read from fresh
 * column gutters (DocState), so which reader takes which run does not change the blocks.
 */
export const SHARE_RUN_PAGES = 16;

/**
 * Reader `index` of `readers` sharing one PDF. From SHARE_MIN_PAGES pages on, each reader takes runs of
 * SHARE_RUN_PAGES pages from `nextRun` (a counter in shared memory, starting at 0, that all readers of the
 * document were given) until none is left. Below that, reader 0 reads every page and the others none (null).
 * Every reader decides alike from the page count, so no thread has to count the pages for the others first.
 * Progress counts this reader's pages against the whole document's.
 */
export function readPdfShare(
  data: Uint8Array,
  index: number,
  readers: number,
  nextRun: Int32Array,
  opts: ExtractOptions = {},
): Promise<PdfPages | null> {
  return withOpenPdf(data, opts, async (pdfjs, doc) => {
    const total = doc.numPages;
    if (total < SHARE_MIN_PAGES)
      return index === 0 ? readOpenPdfPages(pdfjs, doc, [{ from: 1, to: total }], opts, total) : null;
    // Each reader has its thread's budget: the document's is shared among them.
    shareInflateBudget(readers);
    const runs = (function* () {
      for (let run = Atomics.add(nextRun, 0, 1); run * SHARE_RUN_PAGES < total; run = Atomics.add(nextRun, 0, 1)) {
        yield { from: run * SHARE_RUN_PAGES + 1, to: Math.min(total, (run + 1) * SHARE_RUN_PAGES) };
      }
    })();
    return readOpenPdfPages(pdfjs, doc, runs, opts, total);
  });
}

async function withOpenPdf<T>(
  data: Uint8Array,
  opts: ExtractOptions,
  use: (pdfjs: PdfJs, doc: PdfDocument) => Promise<T>,
): Promise<T> {
  const { pdfjs, doc } = await openPdf(data, opts.limits);
  try {
    return await use(pdfjs, doc);
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/**
 * Reads runs of pages (within 1..numPages: the callers clamp them), each from fresh column gutters (DocState).
 * Progress counts the pages read so far against `progressTotal`.
 */
async function readOpenPdfPages(
  pdfjs: PdfJs,
  doc: PdfDocument,
  runs: Iterable<PageRun>,
  opts: ExtractOptions,
  progressTotal: number,
): Promise<PdfPages> {
  const total = doc.numPages;
  const fonts = new FontRegistry();
  const out: PdfPages = { total, layouts: [], warnings: [], failed: 0 };
  let done = 0;
  for (const { from, to } of runs) {
    const state: DocState = { fonts, gutters: [] };
    for (let n = from; n <= to; n++) {
      await readPageInto(pdfjs, doc, n, state, out, opts);
      opts.onProgress?.(++done, progressTotal);
    }
    if (from === 1) {
      const title = await metadataTitle(doc);
      if (title) out.title = title;
    }
  }
  return out;
}

/** Reads page `n` into `out`: its layout (or a failed page's place holder), and its OCR when asked for. */
async function readPageInto(
  pdfjs: PdfJs,
  doc: PdfDocument,
  n: number,
  state: DocState,
  out: PdfPages,
  opts: ExtractOptions,
): Promise<void> {
  try {
    out.layouts.push(await withTimeout(readPage(pdfjs, doc, n, state), PAGE_TIMEOUT_MS, () => new Error('timed out')));
  } catch (err) {
    assertInflateBudget();
    checkHeap();
    // A page tree that leads back to itself is built to make readers walk it forever: no document has one.
    if (err instanceof Error && /circular reference/i.test(err.message) && /pages? tree/i.test(err.message)) {
      throw new PdfExtractError('PDF_INVALID', `Not a readable PDF: its page tree loops back on itself (page ${n})`);
    }
    out.failed++;
    out.warnings.push(`page ${n}: text could not be read (${err instanceof Error ? err.message : String(err)})`);
    const size = await pageSize(doc, n);
    out.layouts.push({
      page: n,
      ...size,
      rotation: 0,
      frameWidth: size.width,
      frameHeight: size.height,
      needsOcr: true,
      regions: [],
      figures: [],
    });
  }
  if (opts.ocr) {
    if (!opts.pageOcr) throw new Error('extraction with OCR needs the page OCR reader (ExtractOptions.pageOcr)');
    await ocrPageWithoutText(doc, out, n, opts.ocr, opts.pageOcr, opts.limits);
  }
  // pdf.js gives up a refused stream quietly (the page just lacks its text): the budgets say it aloud.
  assertInflateBudget();
  checkHeap();
}

/**
 * Makes the document's blocks from the layouts of all its pages (given in page order, possibly in
 * several parts): running heads, body font size, heading levels and list depths need the whole document.
 */
export function assemblePdf(parts: PdfPages[]): ExtractionResult {
  const total = parts[0]?.total ?? 0;
  // Readers sharing a document take runs of pages as they come free: back in page order.
  const layouts = parts.flatMap((p) => p.layouts).sort((a, b) => a.page - b.page);
  const warnings = parts.flatMap((p) => p.warnings).sort((a, b) => warningPage(a) - warningPage(b));
  const failed = parts.reduce((n, p) => n + p.failed, 0);
  if (failed === total) {
    throw new PdfExtractError('PDF_INVALID', `Not a readable PDF: none of its ${total} pages could be read`);
  }
  markRunningHeads(layouts);
  const stats = docStats(layouts);
  const pending = layouts.flatMap((l) => {
    if (l.needsOcr) return [];
    const blocks = pageBlocks(l, stats);
    // Boxes go back from the page's reading frame to the page as displayed.
    if (l.rotation !== 0) for (const b of blocks) b.bbox = unturnBox(b.bbox, l.rotation, l.width, l.height);
    return blocks;
  });
  const blocks = withOcrBlocks(finish(pending, stats.bodySize), parts);
  const textPages: ExtractedPage[] = layouts.map((l) => ({
    page: l.page,
    width: Math.round(l.width * 100) / 100,
    height: Math.round(l.height * 100) / 100,
    rotation: l.viewRotation,
    needs_ocr: l.needsOcr,
  }));
  const pages = withOcrPages(textPages, parts);
  const ocrPages = pages.filter((p) => p.needs_ocr && !p.ocr).length;
  if (ocrPages > 0) warnings.push(`${ocrPages} of ${total} pages have no text layer and need OCR`);
  const result: ExtractionResult = { format: 'pdf', total_pages: total, pages, blocks, warnings };
  const title =
    parts.find((p) => p.title)?.title ?? blocks.find((b) => b.type === 'heading' && b.heading_level === 1)?.text;
  if (title) result.title = title;
  return result;
}

/** The page a reader's warning is about ("page 12: ..."); the others sort after them, in their order. */
function warningPage(warning: string): number {
  const m = /^page (\d+):/.exec(warning);
  return m ? Number(m[1]) : Infinity;
}

/**
 * Extracts the blocks of a PDF in reading order, all pages in this thread. Rejects with a
 * PdfExtractError whose `code` is 'PDF_INVALID' (not a PDF, damaged beyond reading) or
 * 'PDF_ENCRYPTED' (needs a password).
 */
export async function extractPdf(data: Uint8Array, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  return assemblePdf([await readPdfPages(data, undefined, opts)]);
}

async function pageSize(
  doc: PdfDocument,
  n: number,
): Promise<{ width: number; height: number; viewRotation: PageLayout['viewRotation'] }> {
  try {
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    page.cleanup();
    return { width: vp.width, height: vp.height, viewRotation: viewRotation(page.rotate) };
  } catch {
    return { width: 0, height: 0, viewRotation: 0 };
  }
}

/** pdf.js already normalises /Rotate to 0, 90, 180 or 270; anything else would be a pdf.js change, read as unturned. */
function viewRotation(rotate: number): PageLayout['viewRotation'] {
  return rotate === 90 || rotate === 180 || rotate === 270 ? rotate : 0;
}

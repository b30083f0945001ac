/**
 * PDF extraction: pdf.js text layer -> lines -> regions in reading order -> typed blocks.
 *
 * Runs inside a Piscina worker thread (plain Node, no DOM). Pages are read one at a time and
 * released right away (page.cleanup), so memory grows with the extracted text, not with the PDF's
 * page count; decisions that need the whole document (body font size, running heads, heading
 * levels, list depths) are made afterwards on the compact per-page layouts.
 */
import type { ExtractedBlock, ExtractedPage, ExtractionResult, ExtractOptions } from '../types.js';
import { pageBlocks, type PendingBlock } from './assemble.js';
import { docStats, headingLevels, listLevels } from './classify.js';
import { PdfExtractError } from './errors.js';
import { FontRegistry } from './fonts.js';
import { findFigures } from './graphics.js';
import { layoutPage } from './layout.js';
import type { PageLayout } from './model.js';
import { openPdf, withTimeout, type PdfDocument, type PdfJs } from './pdfjs-loader.js';
import { readPageText, styleRuns } from './page-text.js';
import { markRunningHeads } from './running-heads.js';

export { PdfExtractError } from './errors.js';

/** Pages with fewer non-space characters than this have no usable text layer (scans). */
const MIN_PAGE_CHARS = 20;
/** A single page that takes longer is given up (and flagged for OCR) rather than stalling the job. */
const PAGE_TIMEOUT_MS = 60_000;
/** Characters a new font must carry on a page to be worth an operator list there. */
const MIN_FONT_CHARS = 12;
/** A caption label at the start of a text item: the page probably holds a figure worth locating. */
const FIGURE_LABEL_RE = /^\s*(?:figure|fig\.)\s*\d/i;

async function readPage(pdfjs: PdfJs, doc: PdfDocument, n: number, fonts: FontRegistry): Promise<PageLayout> {
  const page = await doc.getPage(n);
  try {
    const viewport = page.getViewport({ scale: 1 });
    const text = await readPageText(page, fonts);
    const layout: PageLayout = {
      page: n,
      width: text.width,
      height: text.height,
      needsOcr: text.chars < MIN_PAGE_CHARS,
      regions: [],
      figures: [],
    };
    if (layout.needsOcr) return layout;
    // Font names (bold, monospace, math) only reach commonObjs through an operator list, which
    // costs about as much as the text itself: build it only for pages that bring a new font used
    // for a fair amount of text (a lone symbol in a new font can wait for a page where it matters),
    // or that announce a figure we want to locate.
    const fontChars = new Map<string, number>();
    for (const r of text.runs) fontChars.set(r.font, (fontChars.get(r.font) ?? 0) + r.text.length);
    const unseen = [...fontChars]
      .filter(([id, n]) => !fonts.isResolved(id) && (n >= MIN_FONT_CHARS || n >= 0.05 * text.chars))
      .map(([id]) => id);
    const wantsFigures = text.runs.some((r) => FIGURE_LABEL_RE.test(r.text));
    if (unseen.length > 0 || wantsFigures) {
      const ops = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
      // Every font of the page is in commonObjs now, the minor ones included.
      for (const id of text.fontIds) {
        if (fonts.isResolved(id)) continue;
        if (page.commonObjs.has(id)) fonts.resolve(id, page.commonObjs.get(id));
        else fonts.markUnknown(id);
      }
      if (wantsFigures) layout.figures = findFigures(pdfjs, ops, viewport.transform, text.width, text.height);
    }
    layout.regions = layoutPage(styleRuns(text.runs, fonts));
    return layout;
  } finally {
    page.cleanup();
  }
}

async function metadataTitle(doc: PdfDocument): Promise<string | undefined> {
  try {
    const meta = await doc.getMetadata();
    const info = meta.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === 'string' ? info.Title.replace(/\s+/g, ' ').trim() : '';
    if (title && !/^untitled$/i.test(title)) return title;
  } catch {
    // Broken metadata is no reason to fail the extraction; fall back to the first heading.
  }
  return undefined;
}

function finish(pending: PendingBlock[], bodySize: number): ExtractedBlock[] {
  const level = headingLevels(pending.flatMap((b) => (b.headingStyle ? [b.headingStyle] : [])));
  const depth = listLevels(
    pending.flatMap((b) => (b.listOffset !== undefined ? [b.listOffset] : [])),
    bodySize,
  );
  return pending.map((b) => {
    const out: ExtractedBlock = { type: b.type, text: b.text, page: b.page, bbox: roundBox(b.bbox) };
    if (b.headingStyle) out.heading_level = level(b.headingStyle);
    if (b.listOffset !== undefined) out.indent_level = depth(b.listOffset);
    if (b.table) out.table = b.table;
    return out;
  });
}

function roundBox(b: PendingBlock['bbox']): PendingBlock['bbox'] {
  const r = (v: number): number => Math.round(v * 100) / 100;
  return { x0: r(b.x0), y0: r(b.y0), x1: r(b.x1), y1: r(b.y1) };
}

/**
 * Extracts the blocks of a PDF in reading order. Rejects with a PdfExtractError whose `code` is
 * 'PDF_INVALID' (not a PDF, damaged beyond reading) or 'PDF_ENCRYPTED' (needs a password).
 */
export async function extractPdf(data: Uint8Array, opts: ExtractOptions = {}): Promise<ExtractionResult> {
  const { pdfjs, doc } = await openPdf(data);
  try {
    const total = doc.numPages;
    const fonts = new FontRegistry();
    const layouts: PageLayout[] = [];
    const warnings: string[] = [];
    let failed = 0;
    for (let n = 1; n <= total; n++) {
      try {
        layouts.push(
          await withTimeout(readPage(pdfjs, doc, n, fonts), PAGE_TIMEOUT_MS, () => new Error('timed out')),
        );
      } catch (err) {
        failed++;
        warnings.push(`page ${n}: text could not be read (${err instanceof Error ? err.message : String(err)})`);
        const size = await pageSize(doc, n);
        layouts.push({ page: n, ...size, needsOcr: true, regions: [], figures: [] });
      }
      opts.onProgress?.(n, total);
    }
    if (failed === total) {
      throw new PdfExtractError('PDF_INVALID', `Not a readable PDF: none of its ${total} pages could be read`);
    }
    markRunningHeads(layouts);
    const stats = docStats(layouts);
    const pending = layouts.flatMap((l) => (l.needsOcr ? [] : pageBlocks(l, stats)));
    const blocks = finish(pending, stats.bodySize);
    const pages: ExtractedPage[] = layouts.map((l) => ({
      page: l.page,
      width: Math.round(l.width * 100) / 100,
      height: Math.round(l.height * 100) / 100,
      needs_ocr: l.needsOcr,
    }));
    const ocrPages = pages.filter((p) => p.needs_ocr).length;
    if (ocrPages > 0) warnings.push(`${ocrPages} of ${total} pages have no text layer and need OCR`);
    const result: ExtractionResult = { format: 'pdf', total_pages: total, pages, blocks, warnings };
    const title =
      (await metadataTitle(doc)) ?? blocks.find((b) => b.type === 'heading' && b.heading_level === 1)?.text;
    if (title) result.title = title;
    return result;
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

async function pageSize(doc: PdfDocument, n: number): Promise<{ width: number; height: number }> {
  try {
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    page.cleanup();
    return { width: vp.width, height: vp.height };
  } catch {
    return { width: 0, height: 0 };
  }
}

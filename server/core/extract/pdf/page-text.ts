/**
 * Reading one page's text layer from pdf.js into runs in top-left page coordinates.
 */
import type { FontRegistry } from './fonts.js';
import type { Run } from './model.js';
import type { PdfPage } from './pdfjs-loader.js';
import { normalizeText } from './text-normalize.js';

/** A text item before its font style is known (the font may only be named after this page). */
export interface RawRun {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  font: string;
  spaceBefore: boolean;
}

export interface PageText {
  width: number;
  height: number;
  runs: RawRun[];
  /** Non-space characters of the whole text layer, rotated text included. */
  chars: number;
  fontIds: Set<string>;
}

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
}

function isTextItem(item: unknown): item is TextItemLike {
  return typeof (item as { str?: unknown }).str === 'string';
}

export async function readPageText(page: PdfPage, fonts: FontRegistry): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 });
  // The viewport transform maps PDF user space (origin bottom-left, y up, maybe rotated and with an
  // offset crop box) to the page as displayed with the origin top-left and y down.
  const [va = 1, vb = 0, vc = 0, vd = -1, ve = 0, vf = 0] = viewport.transform;
  const width = viewport.width;
  const height = viewport.height;
  const content = await page.getTextContent();
  const runs: RawRun[] = [];
  const fontIds = new Set<string>();
  const seen = new Set<string>();
  let chars = 0;
  let spaceBefore = false;
  for (const item of content.items) {
    if (!isTextItem(item)) continue;
    const str = item.str;
    if (!str || !str.trim()) {
      if (str) spaceBefore = true;
      continue;
    }
    chars += str.replace(/\s+/g, '').length;
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform;
    const m0 = va * a + vc * b;
    const m1 = vb * a + vd * b;
    const m2 = va * c + vc * d;
    const m3 = vb * c + vd * d;
    const x = va * e + vc * f + ve;
    const y = vb * e + vd * f + vf;
    // Only upright left-to-right text takes part in the layout; rotated text (watermarks, rotated
    // table heads, arXiv side stamps) would only scramble the lines around it.
    if (!(m0 > 0 && Math.abs(m1) <= 0.05 * m0 && m3 < 0)) {
      spaceBefore = false;
      continue;
    }
    const size = Math.hypot(m2, m3);
    if (!(size >= 1 && size <= 1000) || !(item.width >= 0)) continue;
    const x1 = x + item.width;
    if (x1 < -2 || x > width + 2 || y < -2 || y > height + size) continue;
    // Fake bold (the same string painted twice, a hair apart) would double the text.
    const key = `${str}|${Math.round(x)}|${Math.round(y)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fontIds.add(item.fontName);
    fonts.noteWidth(item.fontName, str, item.width, size);
    runs.push({ text: str, x0: x, x1, y, size, font: item.fontName, spaceBefore });
    spaceBefore = /\s$/.test(str);
  }
  return { width, height, runs, chars, fontIds };
}

/** Applies font styles and text clean-up once the page's fonts are known. */
export function styleRuns(raw: RawRun[], fonts: FontRegistry): Run[] {
  const out: Run[] = [];
  for (const r of raw) {
    const style = fonts.style(r.font);
    // Raw control codes in a math font are delimiter pieces, not T1 ligature slots.
    const text = normalizeText(r.text, !style.math);
    if (!text.trim()) continue;
    out.push({ ...r, text, bold: style.bold, mono: style.mono, math: style.math });
  }
  return out;
}

/**
 * Reading one page's text layer from pdf.js into runs in top-left page coordinates.
 */
import type { BBox } from '../types.js';
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
  /** Size of the page as displayed (viewport), in points. */
  width: number;
  height: number;
  /**
   * Clockwise turn (0, 90, 180, 270) applied to the page so that most of its text reads left to
   * right: a landscape table set sideways on a portrait page is laid out in its own frame.
   */
  rotation: Rotation;
  /** Size of that frame (width and height swap for 90 and 270). */
  frameWidth: number;
  frameHeight: number;
  /** Maps displayed page coordinates into the frame; runs are already in frame coordinates. */
  frameTransform: number[];
  runs: RawRun[];
  /** Non-space characters of the whole text layer, rotated text included. */
  chars: number;
  fontIds: Set<string>;
}

export type Rotation = 0 | 90 | 180 | 270;

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
}

function isTextItem(item: unknown): item is TextItemLike {
  return typeof (item as { str?: unknown }).str === 'string';
}

type Matrix = [number, number, number, number, number, number];

/** The product m × n of two PDF transforms: n applied first, then m. */
export function multiply(m: readonly number[], n: readonly number[]): Matrix {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = m;
  const [p = 1, q = 0, r = 0, t = 1, u = 0, v = 0] = n;
  return [a * p + c * q, b * p + d * q, a * r + c * t, b * r + d * t, a * u + c * v + e, b * u + d * v + f];
}

/** Which way an item's text runs on the displayed page (y down), as the clockwise turn that fixes it. */
function turnOf(m0: number, m1: number): Rotation {
  if (Math.abs(m1) <= 0.05 * Math.abs(m0)) return m0 > 0 ? 0 : 180;
  if (Math.abs(m0) <= 0.05 * Math.abs(m1)) return m1 < 0 ? 90 : 270;
  return 0;
}

/** Frame transform for a clockwise turn of a width x height page (x right, y down). */
function turnMatrix(turn: Rotation, width: number, height: number): Matrix {
  switch (turn) {
    case 90:
      return [0, 1, -1, 0, height, 0];
    case 270:
      return [0, -1, 1, 0, 0, width];
    case 180:
      return [-1, 0, 0, -1, width, height];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

/**
 * Names the page's fonts from the text layer's styles, which carry each font's name and weight in the
 * pdf.js Lectern runs (patches/pdfjs-dist+*.patch). Fonts a style does not name stay unresolved, and the
 * page reader then learns them from an operator list as it must with a plain pdf.js.
 */
function nameFonts(styles: Record<string, unknown>, fonts: FontRegistry): void {
  for (const [id, style] of Object.entries(styles)) {
    const s = style as { fontName?: unknown; bold?: unknown; black?: unknown };
    if (typeof s.fontName === 'string' && !fonts.isResolved(id))
      fonts.resolve(id, { name: s.fontName, bold: s.bold, black: s.black });
  }
}

export async function readPageText(page: PdfPage, fonts: FontRegistry): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 });
  const width = viewport.width;
  const height = viewport.height;
  const content = await page.getTextContent();
  const items: TextItemLike[] = [];
  for (const item of content.items) if (isTextItem(item)) items.push(item);
  nameFonts(content.styles, fonts);
  // The viewport transform maps PDF user space (origin bottom-left, y up, maybe rotated and with an
  // offset crop box) to the page as displayed with the origin top-left and y down.
  const vt = viewport.transform;
  const [ta = 1, tb = 0, tc = 0, td = -1] = vt;
  const turnChars = new Map<Rotation, number>();
  let chars = 0;
  for (const item of items) {
    const n = item.str.replace(/\s+/g, '').length;
    if (n === 0) continue;
    chars += n;
    const [a = 0, b = 0] = item.transform;
    const turn = turnOf(ta * a + tc * b, tb * a + td * b);
    turnChars.set(turn, (turnChars.get(turn) ?? 0) + n);
  }
  let rotation: Rotation = 0;
  for (const [turn, n] of turnChars) if (turn !== 0 && n > 0.6 * chars) rotation = turn;
  const frameTransform = turnMatrix(rotation, width, height);
  const [va, vb, vc, vd, ve, vf] = multiply(frameTransform, vt);
  const frameWidth = rotation === 90 || rotation === 270 ? height : width;
  const frameHeight = rotation === 90 || rotation === 270 ? width : height;

  const runs: RawRun[] = [];
  const fontIds = new Set<string>();
  const seen = new Set<string>();
  let spaceBefore = false;
  for (const item of items) {
    const str = item.str;
    if (!str?.trim()) {
      if (str) spaceBefore = true;
      continue;
    }
    const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform;
    const m0 = va * a + vc * b;
    const m1 = vb * a + vd * b;
    const m2 = va * c + vc * d;
    const m3 = vb * c + vd * d;
    const x = va * e + vc * f + ve;
    const y = vb * e + vd * f + vf;
    // Only text upright in the frame takes part in the layout; text at other angles (watermarks,
    // rotated table heads, arXiv side stamps) would only scramble the lines around it.
    if (!(m0 > 0 && Math.abs(m1) <= 0.05 * m0 && m3 < 0)) {
      spaceBefore = false;
      continue;
    }
    const size = Math.hypot(m2, m3);
    if (!(size >= 1 && size <= 1000) || !(item.width >= 0)) continue;
    const x1 = x + item.width;
    if (x1 < -2 || x > frameWidth + 2 || y < -2 || y > frameHeight + size) continue;
    // Fake bold (the same string painted twice, a hair apart) would double the text.
    const key = `${str}|${Math.round(x)}|${Math.round(y)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    fontIds.add(item.fontName);
    fonts.noteWidth(item.fontName, str, item.width, size);
    runs.push({ text: str, x0: x, x1, y, size, font: item.fontName, spaceBefore });
    spaceBefore = /\s$/.test(str);
  }
  return { width, height, rotation, frameWidth, frameHeight, frameTransform, runs, chars, fontIds };
}

/** Maps a box from a page's frame back to the displayed page (undoes the turn of readPageText). */
export function unturnBox(box: BBox, rotation: Rotation, width: number, height: number): BBox {
  switch (rotation) {
    case 90: // x' = H - y, y' = x
      return { x0: box.y0, y0: height - box.x1, x1: box.y1, y1: height - box.x0 };
    case 270: // x' = y, y' = W - x
      return { x0: width - box.y1, y0: box.x0, x1: width - box.y0, y1: box.x1 };
    case 180:
      return { x0: width - box.x1, y0: height - box.y1, x1: width - box.x0, y1: height - box.y0 };
    default:
      return box;
  }
}

/** Applies font styles and text clean-up once the page's fonts are known. */
export function styleRuns(raw: RawRun[], fonts: FontRegistry): Run[] {
  const out: Run[] = [];
  const styles = new Map<string, ReturnType<FontRegistry['style']>>();
  for (const r of raw) {
    let style = styles.get(r.font);
    if (!style) styles.set(r.font, (style = fonts.style(r.font)));
    // Raw control codes in a math font are delimiter pieces, not T1 ligature slots.
    const text = normalizeText(r.text, !style.math);
    if (!text.trim()) continue;
    out.push({
      text,
      x0: r.x0,
      x1: r.x1,
      y: r.y,
      size: r.size,
      font: r.font,
      spaceBefore: r.spaceBefore,
      bold: style.bold,
      mono: style.mono,
      math: style.math,
    });
  }
  return out;
}

/**
 * Internal layout model of the PDF extractor. Coordinates are PDF points in page space with the
 * origin at the top-left corner (y grows downwards), i.e. already in the output's BBox convention.
 */
import type { BBox } from '../types.js';

/** One horizontal text item of pdf.js, with its font's style resolved. */
export interface Run {
  text: string;
  x0: number;
  x1: number;
  /** Baseline y. */
  y: number;
  /** Font size in points (the text matrix's vertical scale). */
  size: number;
  /** pdf.js's per-document font id (loadedName); key into the font registry. */
  font: string;
  /** pdf.js emitted a whitespace item right before this one (a word break it inferred). */
  spaceBefore: boolean;
  bold: boolean;
  mono: boolean;
  math: boolean;
}

/** Runs of one text line inside one layout region, sorted left to right. */
export interface Line {
  runs: Run[];
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Baseline of the line's dominant (largest-count) size. */
  y: number;
  /** Dominant font size, weighted by characters. */
  size: number;
  text: string;
  /** Non-space characters. */
  chars: number;
  /** Fractions of non-space characters in monospace / math / bold fonts (math also counts symbols). */
  mono: number;
  math: number;
  bold: number;
  /** Set by the running-head pass. */
  role?: 'header' | 'footer';
}

/**
 * A rectangle of the page read as one flow: the whole width (title, full-width floats), one column
 * of a multi-column layout, or a margin-note strip. Regions are stored in reading order.
 */
export interface Region {
  kind: 'full' | 'column' | 'margin';
  /** Regions side by side (columns, margin notes) share a section number; sections stack. */
  section: number;
  x0: number;
  x1: number;
  lines: Line[];
}

export interface PageLayout {
  page: number;
  /** Displayed page size (what pages[] reports). */
  width: number;
  height: number;
  /** The page's /Rotate: the turn from the page as stored to the page as displayed (width, height, boxes). */
  viewRotation: 0 | 90 | 180 | 270;
  /**
   * The frame the layout was made in: the page turned clockwise by `rotation` so that its text
   * reads left to right. Regions, lines and figures are in frame coordinates.
   */
  rotation: 0 | 90 | 180 | 270;
  frameWidth: number;
  frameHeight: number;
  needsOcr: boolean;
  regions: Region[];
  /** Areas where images or dense vector graphics are painted (only when the operator list was read). */
  figures: BBox[];
}

export function lineBBox(lines: readonly Line[]): BBox {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const l of lines) {
    if (l.x0 < x0) x0 = l.x0;
    if (l.top < y0) y0 = l.top;
    if (l.x1 > x1) x1 = l.x1;
    if (l.bottom > y1) y1 = l.bottom;
  }
  return { x0, y0, x1, y1 };
}

/** Glyph box above/below the baseline, as fractions of the font size (font metrics are unreliable). */
export const ASCENT = 0.75;
export const DESCENT = 0.22;

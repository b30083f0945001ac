/**
 * Figure areas from a page's operator list: painted images, and clusters of vector paths (plots
 * drawn as PDF graphics), and how much of a page its largest image covers. The operator list is costly
 * to build, so the extractor only builds it where a figure caption says a figure is on the page, where
 * the text is too sparse to trust, or where a font is left unnamed; this module only walks one that exists.
 */
import type { BBox } from '../types.js';
import type { PdfJs } from './pdfjs-loader.js';

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: readonly number[]): Matrix {
  const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = n;
  return [
    m[0] * a + m[2] * b,
    m[1] * a + m[3] * b,
    m[0] * c + m[2] * d,
    m[1] * c + m[3] * d,
    m[0] * e + m[2] * f + m[4],
    m[1] * e + m[3] * f + m[5],
  ];
}

function boxOf(m: Matrix, x0: number, y0: number, x1: number, y1: number): BBox {
  const xs = [x0, x1, x0, x1];
  const ys = [y0, y0, y1, y1];
  let bx0 = Infinity;
  let by0 = Infinity;
  let bx1 = -Infinity;
  let by1 = -Infinity;
  for (let i = 0; i < 4; i++) {
    const x = xs[i] as number;
    const y = ys[i] as number;
    const px = m[0] * x + m[2] * y + m[4];
    const py = m[1] * x + m[3] * y + m[5];
    if (px < bx0) bx0 = px;
    if (px > bx1) bx1 = px;
    if (py < by0) by0 = py;
    if (py > by1) by1 = py;
  }
  return { x0: bx0, y0: by0, x1: bx1, y1: by1 };
}

export interface OperatorListLike {
  fnArray: number[];
  argsArray: unknown[];
}

const GRID = 8; // pt per clustering cell
/** Drawings below this weight are decorations: frames, rules, bullets, a few table lines. */
const MIN_WEIGHT = 24;

interface WeightedBox {
  box: BBox;
  weight: number;
}

/** What a page paints besides text, in top-left page coordinates, for findFigures and largestImageShare. */
export interface PageGraphics {
  images: BBox[];
  paths: WeightedBox[];
  width: number;
  height: number;
}

/**
 * Walks an operator list once for the page's images and weighted vector paths. `viewport` is the page's
 * scale-1 viewport transform, so that rotated pages and offset crop boxes come out right.
 */
export function paintedGraphics(
  pdfjs: PdfJs,
  ops: OperatorListLike,
  viewport: readonly number[],
  width: number,
  height: number,
): PageGraphics {
  const OPS = pdfjs.OPS;
  const pageArea = width * height;
  const imageOps = new Set<number>([
    OPS.paintImageXObject,
    OPS.paintInlineImageXObject,
    OPS.paintImageMaskXObject,
    OPS.paintImageXObjectRepeat,
    OPS.paintInlineImageXObjectGroup,
    OPS.paintSolidColorImageMask,
  ]);
  let ctm: Matrix = multiply([1, 0, 0, 1, 0, 0], viewport);
  const stack: Matrix[] = [];
  const images: BBox[] = [];
  const paths: WeightedBox[] = [];
  const { fnArray, argsArray } = ops;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform && args) ctm = multiply(ctm, args as number[]);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      const m = args?.[0] as number[] | null | undefined;
      if (m && m.length === 6) ctm = multiply(ctm, m);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn !== undefined && imageOps.has(fn)) {
      images.push(boxOf(ctm, 0, 0, 1, 1));
    } else if (fn === OPS.constructPath && args) {
      // [paint op, path data, [minX, minY, maxX, maxY] in current user space]; clip-only paths
      // end with endPath and paint nothing.
      const paint = args[0];
      const mm = args[2] as ArrayLike<number> | null;
      if (paint === OPS.endPath || !mm || mm.length < 4) continue;
      const b = boxOf(ctm, mm[0] as number, mm[1] as number, mm[2] as number, mm[3] as number);
      const w = b.x1 - b.x0;
      const h = b.y1 - b.y0;
      if (w * h > 0.6 * pageArea) continue; // page or slide background
      const data = (args[1] as ArrayLike<unknown> | null)?.[0] as ArrayLike<number> | null | undefined;
      // Drawing ops plus coordinates: about four numbers per segment.
      const segments = Math.max(1, Math.ceil((data?.length ?? 4) / 4));
      // A long hairline alone is a rule (booktabs, underline) and weighs least; plotted data
      // (long polylines) weighs most.
      const rule = (h < 2 && w > 60) || (w < 2 && h > 60);
      paths.push({ box: b, weight: rule ? 1 : Math.min(20, segments) });
    }
  }
  return { images, paths, width, height };
}

/** Figure boxes in top-left page coordinates. */
export function findFigures({ images, paths, width, height }: PageGraphics): BBox[] {
  const pageArea = width * height;
  const figures: BBox[] = [];
  for (const b of images) {
    const w = b.x1 - b.x0;
    const h = b.y1 - b.y0;
    // Icons, bullets and full-page backgrounds (slides, scans) are not figures.
    if (w >= 24 && h >= 24 && w * h < 0.85 * pageArea) figures.push(clip(b, width, height));
  }
  figures.push(...clusterPaths(paths, width, height));
  return mergeOverlapping(figures);
}

/** The share of the page (0..1) that its largest image covers: about 1 for a scanned page. */
export function largestImageShare({ images, width, height }: PageGraphics): number {
  let largest = 0;
  for (const image of images) {
    const b = clip(image, width, height);
    largest = Math.max(largest, Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0));
  }
  return largest / (width * height);
}

function clip(b: BBox, width: number, height: number): BBox {
  return {
    x0: Math.max(0, b.x0),
    y0: Math.max(0, b.y0),
    x1: Math.min(width, b.x1),
    y1: Math.min(height, b.y1),
  };
}

/** Connected groups of grid cells touched by paths; heavy groups are drawings. */
function clusterPaths(paths: WeightedBox[], width: number, height: number): BBox[] {
  const total = paths.reduce((sum, p) => sum + p.weight, 0);
  if (total < MIN_WEIGHT) return [];
  const cols = Math.ceil(width / GRID) + 1;
  const rows = Math.ceil(height / GRID) + 1;
  const marks = new Uint8Array(cols * rows);
  // Each path's weight is credited to the first cell it marks, so a cluster's weight is the sum
  // of its paths.
  const weight = new Float64Array(cols * rows);
  for (const { box: p, weight: w } of paths) {
    const c0 = Math.max(0, Math.floor(p.x0 / GRID));
    const c1 = Math.min(cols - 1, Math.floor(p.x1 / GRID));
    const r0 = Math.max(0, Math.floor(p.y0 / GRID));
    const r1 = Math.min(rows - 1, Math.floor(p.y1 / GRID));
    if (c1 < c0 || r1 < r0) continue;
    weight[r0 * cols + c0] = (weight[r0 * cols + c0] ?? 0) + w;
    // Large shapes (frames, plotted lines) mark only their outline, so that a frame does not
    // fill up everything inside it.
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        if (r === r0 || r === r1 || c === c0 || c === c1) marks[r * cols + c] = 1;
      }
    }
  }
  const seen = new Uint8Array(cols * rows);
  const out: BBox[] = [];
  for (let start = 0; start < marks.length; start++) {
    if (!marks[start] || seen[start]) continue;
    const queue = [start];
    seen[start] = 1;
    let hits = 0;
    let c0 = Infinity;
    let c1 = -Infinity;
    let r0 = Infinity;
    let r1 = -Infinity;
    while (queue.length) {
      const cell = queue.pop() as number;
      hits += weight[cell] ?? 0;
      const r = Math.floor(cell / cols);
      const c = cell % cols;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      for (const [dr, dc] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ] as const) {
        const nr = r + dr;
        const nc = c + dc;
        if (nr < 0 || nc < 0 || nr >= rows || nc >= cols) continue;
        const n = nr * cols + nc;
        if (marks[n] && !seen[n]) {
          seen[n] = 1;
          queue.push(n);
        }
      }
    }
    const w = (c1 - c0 + 1) * GRID;
    const h = (r1 - r0 + 1) * GRID;
    if (hits >= MIN_WEIGHT && w >= 48 && h >= 32) {
      out.push(clip({ x0: c0 * GRID, y0: r0 * GRID, x1: (c1 + 1) * GRID, y1: (r1 + 1) * GRID }, width, height));
    }
  }
  return out;
}

function overlaps(a: BBox, b: BBox): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

function mergeOverlapping(boxes: BBox[]): BBox[] {
  const out: BBox[] = [];
  for (const b of boxes) {
    let merged = { ...b };
    for (let i = out.length - 1; i >= 0; i--) {
      const o = out[i] as BBox;
      if (overlaps(o, merged)) {
        merged = {
          x0: Math.min(o.x0, merged.x0),
          y0: Math.min(o.y0, merged.y0),
          x1: Math.max(o.x1, merged.x1),
          y1: Math.max(o.y1, merged.y1),
        };
        out.splice(i, 1);
      }
    }
    out.push(merged);
  }
  return out;
}

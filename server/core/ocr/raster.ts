/**
 * Greyscale page images for OCR. Tesseract works on grey anyway; handing it an uncompressed 8-bit PGM
 * instead of an RGBA PNG skips a PNG decode of ~9 Mpx inside WebAssembly on every page (and every retry at
 * another rotation), and the grey bytes are where the cheap clean-ups below happen.
 */
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';

export interface GreyRaster {
  width: number;
  height: number;
  /** One byte per pixel, row by row, 0 = black. */
  data: Uint8Array;
}

export type QuarterTurn = 0 | 90 | 180 | 270;

/** Pixels drawn or read back at a time: a whole page's RGBA copy would cost 4 bytes a pixel more. */
const STRIP_PIXELS = 2_000_000;
const stripRows = (width: number, height: number): number =>
  Math.max(1, Math.min(height, Math.floor(STRIP_PIXELS / Math.max(1, width))));

/**
 * Canvases up to this size (A4 and Letter at 300 dpi are ~8.7 Mpx) have their pixels read in place; larger
 * ones a strip at a time. In Node `data()` lends the canvas's own memory; Electron allows no such external
 * buffers, and napi-rs then copies the whole surface, which must stay a bounded, page-sized copy.
 */
const DIRECT_READ_PIXELS = 12_000_000;

/**
 * Decodes an image @napi-rs/canvas reads to grey, on a white background. Only for bytes known to decode:
 * canvas's decoder crashes the process on a broken file (uploads go through png-check.ts first). The image is
 * drawn a strip of rows at a time on a small canvas, so a 40 Mpx scan costs its decoded bitmap and its grey
 * bytes, not another full-size RGBA copy.
 */
export async function decodeToGrey(image: Uint8Array): Promise<GreyRaster> {
  const img = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const { width, height } = img;
  const rows = stripRows(width, height);
  const canvas = createCanvas(width, rows);
  const ctx = canvas.getContext('2d');
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y += rows) {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, rows);
    ctx.drawImage(img, 0, -y);
    greyOfCanvas(canvas, Math.min(rows, height - y), out, y * width);
  }
  return { width, height, data: out };
}

/** Grey of a whole canvas (a rendered page). */
export function canvasToGrey(canvas: Canvas): GreyRaster {
  const { width, height } = canvas;
  const out = new Uint8Array(width * height);
  greyOfCanvas(canvas, height, out, 0);
  return { width, height, data: out };
}

/**
 * ITU-R BT.601 luma of the first `rows` rows of a canvas, written into `out` from `at`. `getImageData`
 * copies and un-premultiplies every pixel first, which costs about twice the conversion itself (~70 ms of a
 * 300 dpi page), so a canvas of page size is read in place (see readInPlace); a larger one a strip at a time.
 */
function greyOfCanvas(canvas: Canvas, rows: number, out: Uint8Array, at: number): void {
  const { width, height } = canvas;
  if (width * height <= DIRECT_READ_PIXELS && readInPlace(canvas, rows, out, at)) return;
  const ctx = canvas.getContext('2d');
  const step = stripRows(width, rows);
  for (let y = 0; y < rows; y += step)
    greyInto(ctx.getImageData(0, y, width, Math.min(step, rows - y)).data, out, at + y * width);
}

/** Where red and blue sit in a pixel of `data()` (Skia's native order), found once from one red pixel. */
let channels: { r: number; b: number } | null | undefined;
function pixelChannels(): { r: number; b: number } | null {
  if (channels !== undefined) return channels;
  const probe = createCanvas(1, 1);
  const ctx = probe.getContext('2d');
  ctx.fillStyle = '#ff0000';
  ctx.fillRect(0, 0, 1, 1);
  let px: Uint8Array | null = null;
  try {
    px = Uint8Array.from(probe.data().subarray(0, 4));
  } catch {
    px = null;
  }
  // Touching the canvas after the copy keeps it (and the memory data() lent) alive through it.
  const opaque = probe.width === 1 && px?.[3] === 255 && px[1] === 0;
  channels =
    !opaque || !px
      ? null
      : px[0] === 255 && px[2] === 0
        ? { r: 0, b: 2 }
        : px[2] === 255 && px[0] === 0
          ? { r: 2, b: 0 }
          : null;
  return channels;
}

/**
 * Reads the canvas's pixels where they are (`data()`), false when they cannot be (an unknown pixel format,
 * padded rows, or no `data()`). `data()` lends the surface's memory without holding the canvas, so the read
 * is synchronous and the canvas is used after it: it cannot be collected, and its pixels freed, meanwhile
 * (the hazard encodePng in render-page.ts describes). Skia keeps the pixels premultiplied: an opaque pixel
 * (every one on our canvases, which are filled white first) reads as its colour, one with alpha a as its
 * colour over white paper, hence the + 255 - a.
 */
function readInPlace(canvas: Canvas, rows: number, out: Uint8Array, at: number): boolean {
  const order = pixelChannels();
  if (!order) return false;
  const { width, height } = canvas;
  let px: Buffer;
  try {
    px = canvas.data();
  } catch {
    return false;
  }
  if (px.length !== width * height * 4) return false;
  const { r, b } = order;
  const n = Math.min(rows * width, out.length - at);
  for (let i = 0, o = at; i < n; i++, o++) {
    const p = i << 2;
    out[o] = (((px[p + r] ?? 0) * 77 + (px[p + 1] ?? 0) * 150 + (px[p + b] ?? 0) * 29) >> 8) + 255 - (px[p + 3] ?? 255);
  }
  return canvas.width === width;
}

/** The same luma from un-premultiplied RGBA pixels (getImageData's), also over white paper. */
function greyInto(rgba: Uint8ClampedArray, out: Uint8Array, at: number): void {
  for (let i = 0, o = at; i < rgba.length; i += 4, o++) {
    const a = rgba[i + 3] ?? 255;
    const luma = ((rgba[i] ?? 0) * 77 + (rgba[i + 1] ?? 0) * 150 + (rgba[i + 2] ?? 0) * 29) >> 8;
    out[o] = a === 255 ? luma : Math.floor((luma * a) / 255) + 255 - a;
  }
}

/** Binary PGM (P5): leptonica inside tesseract.js reads it with no decompression. */
export function toPgm(r: GreyRaster): Buffer {
  const head = Buffer.from(`P5\n${r.width} ${r.height}\n255\n`, 'latin1');
  const out = Buffer.allocUnsafe(head.length + r.data.length);
  head.copy(out, 0);
  out.set(r.data, head.length);
  return out;
}

/** Turns the image clockwise by a quarter-turn multiple. */
export function rotateGrey(r: GreyRaster, turn: QuarterTurn): GreyRaster {
  if (turn === 0) return r;
  const { width: w, height: h, data: src } = r;
  const swap = turn !== 180;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let ox: number;
      let oy: number;
      if (turn === 90) {
        ox = h - 1 - y;
        oy = x;
      } else if (turn === 180) {
        ox = w - 1 - x;
        oy = h - 1 - y;
      } else {
        ox = y;
        oy = w - 1 - x;
      }
      out[oy * ow + ox] = src[row + x] ?? 255;
    }
  }
  return { width: ow, height: oh, data: out };
}

/** Halves both sides by averaging 2x2 squares (for the cheap orientation probe). */
export function halve(r: GreyRaster): GreyRaster {
  const ow = Math.max(1, r.width >> 1);
  const oh = Math.max(1, r.height >> 1);
  const out = new Uint8Array(ow * oh);
  const { width: w, data: d } = r;
  for (let y = 0; y < oh; y++) {
    const a = 2 * y * w;
    const b = a + w;
    for (let x = 0; x < ow; x++) {
      const i = 2 * x;
      out[y * ow + x] = ((d[a + i] ?? 255) + (d[a + i + 1] ?? 255) + (d[b + i] ?? 255) + (d[b + i + 1] ?? 255)) >> 2;
    }
  }
  return { width: ow, height: oh, data: out };
}

/** A sub-rectangle in pixels, clamped to the image. */
export function cropGrey(r: GreyRaster, x0: number, y0: number, x1: number, y1: number): GreyRaster {
  const cx0 = Math.max(0, Math.min(r.width - 1, Math.floor(x0)));
  const cy0 = Math.max(0, Math.min(r.height - 1, Math.floor(y0)));
  const cx1 = Math.max(cx0 + 1, Math.min(r.width, Math.ceil(x1)));
  const cy1 = Math.max(cy0 + 1, Math.min(r.height, Math.ceil(y1)));
  const w = cx1 - cx0;
  const out = new Uint8Array(w * (cy1 - cy0));
  for (let y = cy0; y < cy1; y++) out.set(r.data.subarray(y * r.width + cx0, y * r.width + cx1), (y - cy0) * w);
  return { width: w, height: cy1 - cy0, data: out };
}

/**
 * A page with (next to) no ink: fewer dark pixels than a couple of small letters would make. Tesseract
 * finds nothing there, slowly, and the turn search would then read it four more times.
 */
export function isBlank(r: GreyRaster): boolean {
  const allowed = Math.max(8, Math.floor((r.width * r.height) / 20_000));
  let dark = 0;
  for (let i = 0; i < r.data.length; i++) if ((r.data[i] ?? 255) < 128 && ++dark > allowed) return false;
  return true;
}

/**
 * Light text on dark bands (slide title bars, shaded table heads, inverted boxes) is invisible to
 * tesseract's global binarisation: it takes the band for a picture and skips it. Bands are found row by
 * row as long runs of dark pixels (light gaps up to a letter's width bridged) that are mostly dark, then
 * closed vertically across the rows where light letters interrupt them, and inverted: their text then reads
 * dark on light like the rest. A line of ordinary (even bold) text is never dark enough to count, and a page
 * without bands is returned as it is. `scale` is the resolution relative to 300 dpi.
 */
export function normalisePolarity(r: GreyRaster, scale = 1): GreyRaster {
  const { width: w, height: h, data } = r;
  const DARK = 128;
  const gap = Math.round(40 * scale);
  const minRun = Math.round(150 * scale);
  const closeV = Math.round(64 * scale);
  // A band's run is at least 75% dark over at least minRun pixels: a row with fewer dark pixels than that
  // holds none, and its mask row stays empty (bridging only fills rows above a band row). Counting is one
  // compare a pixel; most rows of a page are skipped on it, and the mask is only made for a page with a band.
  const minDark = 0.75 * minRun;
  let mask: Uint8Array | null = null;
  const lastMasked = new Int32Array(w).fill(-1);
  /** This row's runs, as start and end pairs. */
  const runs: number[] = [];
  let firstRow = h;
  let lastRow = -1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let rowDark = 0;
    for (let x = 0; x < w; x++) if ((data[row + x] ?? 255) < DARK) rowDark++;
    if (rowDark < minDark) continue;
    runs.length = 0;
    let x = 0;
    while (x < w) {
      if ((data[row + x] ?? 255) >= DARK) {
        x++;
        continue;
      }
      const start = x;
      let end = x;
      let dark = 0;
      let light = 0;
      for (; x < w; x++) {
        if ((data[row + x] ?? 255) < DARK) {
          dark++;
          light = 0;
          end = x + 1;
        } else if (++light > gap) break;
      }
      if (end - start >= minRun && dark >= 0.75 * (end - start)) runs.push(start, end);
    }
    if (runs.length === 0) continue;
    mask ??= new Uint8Array(w * h);
    for (let i = 0; i < runs.length; i += 2) {
      const start = runs[i] ?? 0;
      const end = runs[i + 1] ?? 0;
      mask.fill(1, row + start, row + end);
      for (let cx = start; cx < end; cx++) {
        const prev = lastMasked[cx] ?? -1;
        // Rows through the band's own letters are less dark; bridge them from the band rows around.
        if (prev >= 0 && y - prev > 1 && y - prev <= closeV)
          for (let yy = prev + 1; yy < y; yy++) mask[yy * w + cx] = 1;
        lastMasked[cx] = y;
      }
    }
    firstRow = Math.min(firstRow, y);
    lastRow = y;
  }
  if (!mask) return r;
  const out = new Uint8Array(data);
  for (let i = firstRow * w; i < (lastRow + 1) * w; i++) if (mask[i]) out[i] = 255 - (data[i] ?? 0);
  return { width: w, height: h, data: out };
}

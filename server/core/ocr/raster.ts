/**
 * Greyscale page images for OCR. Tesseract works on grey anyway; handing it an uncompressed 8-bit PGM
 * instead of an RGBA PNG skips a PNG decode of ~9 Mpx inside WebAssembly on every page (and every retry at
 * another rotation), and the grey bytes are where the cheap clean-ups below happen.
 */
import { createCanvas, loadImage, type SKRSContext2D } from '@napi-rs/canvas';

export interface GreyRaster {
  width: number;
  height: number;
  /** One byte per pixel, row by row, 0 = black. */
  data: Uint8Array;
}

export type QuarterTurn = 0 | 90 | 180 | 270;

/** Pixels read back from a canvas at a time: a whole page's RGBA copy would cost 4 bytes a pixel more. */
const STRIP_PIXELS = 2_000_000;
const stripRows = (width: number, height: number): number => Math.max(1, Math.min(height, Math.floor(STRIP_PIXELS / Math.max(1, width))));

/**
 * Decodes an image @napi-rs/canvas reads to grey, on a white background. Only for bytes known to decode:
 * canvas's decoder crashes the process on a broken file (uploads go through png-check.ts first). The image is
 * drawn a strip of rows at a time on a small canvas, so a 40 Mpx scan costs its decoded bitmap and its grey
 * bytes, not two more full-size RGBA copies (a canvas and its pixel read-back).
 */
export async function decodeToGrey(image: Uint8Array): Promise<GreyRaster> {
  const img = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const { width, height } = img;
  const rows = stripRows(width, height);
  const ctx = createCanvas(width, rows).getContext('2d');
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y += rows) {
    const n = Math.min(rows, height - y);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, rows);
    ctx.drawImage(img, 0, -y);
    greyInto(ctx.getImageData(0, 0, width, n).data, out, y * width);
  }
  return { width, height, data: out };
}

/** Grey of a canvas's pixels, read back a strip of rows at a time (see decodeToGrey). */
export function canvasToGrey(ctx: SKRSContext2D, width: number, height: number): GreyRaster {
  const rows = stripRows(width, height);
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y += rows) greyInto(ctx.getImageData(0, y, width, Math.min(rows, height - y)).data, out, y * width);
  return { width, height, data: out };
}

/** ITU-R BT.601 luma of RGBA pixels, written into `out` from `at`. */
function greyInto(rgba: Uint8ClampedArray | Uint8Array, out: Uint8Array, at: number): void {
  for (let i = 0, o = at; i < rgba.length; i += 4, o++) {
    out[o] = ((rgba[i] ?? 0) * 77 + (rgba[i + 1] ?? 0) * 150 + (rgba[i + 2] ?? 0) * 29) >> 8;
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
  const mask = new Uint8Array(w * h);
  const lastMasked = new Int32Array(w).fill(-1);
  let any = false;
  for (let y = 0; y < h; y++) {
    const row = y * w;
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
      if (end - start >= minRun && dark >= 0.75 * (end - start)) {
        mask.fill(1, row + start, row + end);
        any = true;
      }
    }
    if (!any) continue;
    for (let cx = 0; cx < w; cx++) {
      if (!mask[row + cx]) continue;
      const prev = lastMasked[cx] ?? -1;
      // Rows through the band's own letters are less dark; bridge them from the band rows around.
      if (prev >= 0 && y - prev > 1 && y - prev <= closeV) for (let yy = prev + 1; yy < y; yy++) mask[yy * w + cx] = 1;
      lastMasked[cx] = y;
    }
  }
  if (!any) return r;
  const out = new Uint8Array(data);
  for (let i = 0; i < out.length; i++) if (mask[i]) out[i] = 255 - (data[i] ?? 0);
  return { width: w, height: h, data: out };
}

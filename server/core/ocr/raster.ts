/**
 * Greyscale page images for OCR. Tesseract works on grey anyway; handing it an uncompressed 8-bit PGM
 * instead of an RGBA PNG skips a PNG decode of ~9 Mpx inside WebAssembly on every page (and every retry at
 * another rotation), and the grey bytes are where the cheap clean-ups below happen.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';

export interface GreyRaster {
  width: number;
  height: number;
  /** One byte per pixel, row by row, 0 = black. */
  data: Uint8Array;
}

export type QuarterTurn = 0 | 90 | 180 | 270;

/** Decodes PNG, JPEG, WebP, GIF or BMP (whatever @napi-rs/canvas reads) to grey, on a white background. */
export async function decodeToGrey(image: Uint8Array): Promise<GreyRaster> {
  const img = await loadImage(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, img.width, img.height);
  ctx.drawImage(img, 0, 0);
  return rgbaToGrey(ctx.getImageData(0, 0, img.width, img.height).data, img.width, img.height);
}

export function rgbaToGrey(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): GreyRaster {
  const data = new Uint8Array(width * height);
  for (let i = 0, o = 0; o < data.length; i += 4, o++) {
    // ITU-R BT.601 luma in integer arithmetic.
    data[o] = ((rgba[i] ?? 0) * 77 + (rgba[i + 1] ?? 0) * 150 + (rgba[i + 2] ?? 0) * 29) >> 8;
  }
  return { width, height, data };
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
 * Light text on dark bands (slide title bars, table header rows, inverted boxes) is invisible to tesseract's
 * global binarisation: it sees a black image region and skips it. Where the neighbourhood (a square of about
 * `window` px, a few text lines) is mostly dark, the pixels are inverted, so such text reads dark on light
 * like the rest. Ordinary dark text never makes its neighbourhood that dark, so it is left alone.
 */
export function normalisePolarity(r: GreyRaster, window = 61, darkBelow = 100): GreyRaster {
  const { width: w, height: h, data } = r;
  // Summed-area table (one extra row and column of zeros) gives every window mean in O(1).
  const sat = new Float64Array((w + 1) * (h + 1));
  let anyDark = false;
  for (let y = 0; y < h; y++) {
    let rowSum = 0;
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x] ?? 255;
      if (v < darkBelow) anyDark = true;
      rowSum += v;
      sat[(y + 1) * (w + 1) + x + 1] = (sat[y * (w + 1) + x + 1] ?? 0) + rowSum;
    }
  }
  if (!anyDark) return r;
  const half = window >> 1;
  const out = new Uint8Array(data);
  let changed = false;
  for (let y = 0; y < h; y++) {
    const ya = Math.max(0, y - half);
    const yb = Math.min(h, y + half + 1);
    for (let x = 0; x < w; x++) {
      const xa = Math.max(0, x - half);
      const xb = Math.min(w, x + half + 1);
      const sum =
        (sat[yb * (w + 1) + xb] ?? 0) - (sat[ya * (w + 1) + xb] ?? 0) - (sat[yb * (w + 1) + xa] ?? 0) + (sat[ya * (w + 1) + xa] ?? 0);
      if (sum < darkBelow * (yb - ya) * (xb - xa)) {
        out[y * w + x] = 255 - (data[y * w + x] ?? 0);
        changed = true;
      }
    }
  }
  return changed ? { width: w, height: h, data: out } : r;
}

/**
 * An image's size in pixels as its header states it (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X, a TIFF page's
 * ImageWidth/ImageLength), read before any decoder sees the file: a decoder allocates what the header
 * asks, so a few hundred KB of PNG can ask for gigabytes (and @napi-rs/canvas aborts the whole process
 * when it cannot get them).
 */
import { checkImagePixels, type DocumentLimits } from '../extract/limits.js';
import { isPng } from './png-check.js';
import { isTiff, tiffPageOffsets } from './tiff-pages.js';

export interface ImageSize {
  width: number;
  height: number;
}

function pngSize(view: DataView): ImageSize | null {
  if (view.byteLength < 33 || view.getUint32(12) !== 0x49484452) return null; // IHDR first
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function jpegSize(view: DataView): ImageSize | null {
  let at = 2;
  while (at + 9 <= view.byteLength) {
    if (view.getUint8(at) !== 0xff) return null;
    const marker = view.getUint8(at + 1);
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2; // no length
      continue;
    }
    // SOF0..SOF15, but DHT (C4), JPG (C8) and DAC (CC) share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end, or scan data before any frame header
    at += 2 + view.getUint16(at + 2);
  }
  return null;
}

function webpSize(view: DataView): ImageSize | null {
  if (view.byteLength < 30 || view.getUint32(0) !== 0x52494646 || view.getUint32(8) !== 0x57454250) return null;
  const chunk = view.getUint32(12);
  if (chunk === 0x56503820)
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }; // 'VP8 '
  if (chunk === 0x5650384c) {
    // 'VP8L': 14 bits of width - 1, then 14 of height - 1, after the 0x2f signature byte
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 0x56503858) {
    // 'VP8X': 24-bit canvas width - 1 and height - 1
    const u24 = (at: number) => view.getUint8(at) | (view.getUint8(at + 1) << 8) | (view.getUint8(at + 2) << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  return null;
}

function tiffSize(data: Uint8Array, view: DataView, index: number): ImageSize | null {
  const ifd = tiffPageOffsets(data)[index];
  if (ifd === undefined) return null;
  const le = data[0] === 0x49;
  const count = view.getUint16(ifd, le);
  let width = 0;
  let height = 0;
  for (let i = 0; i < count && ifd + 2 + i * 12 + 12 <= data.length; i++) {
    const e = ifd + 2 + i * 12;
    const tag = view.getUint16(e, le);
    if (tag !== 256 && tag !== 257) continue;
    const value = view.getUint16(e + 2, le) === 3 ? view.getUint16(e + 8, le) : view.getUint32(e + 8, le);
    if (tag === 256) width = value;
    else height = value;
  }
  return width > 0 && height > 0 ? { width, height } : null;
}

/** The size of page `index` (0-based; TIFF pages have their own) as the header says, or null if unknown. */
export function imageSize(data: Uint8Array, index = 0): ImageSize | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (isTiff(data)) return tiffSize(data, view, index);
  if (isPng(data)) return pngSize(view);
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8) return jpegSize(view);
  return webpSize(view);
}

/**
 * Refuses an image page before decoding when its header asks for more pixels than `limits` allow. (A PNG's
 * image data, which png-check.ts inflates whole, is then bounded too: 8 bytes a pixel at most.) A header
 * this code cannot read is left to the decoders, which refuse such files themselves.
 */
export function checkImageLimits(data: Uint8Array, index: number, limits: DocumentLimits): void {
  const size = imageSize(data, index);
  if (size) checkImagePixels(size.width, size.height, limits);
}

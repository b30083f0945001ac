/**
 * The resolution an image file says it was scanned at: PNG `pHYs`, JPEG JFIF density, TIFF XResolution.
 * It gives an image page its size in points (so a 200 dpi A4 scan is an A4 page) and tells tesseract the
 * text size to expect. Files that say nothing, or say something implausible (72 dpi screen defaults
 * included, which scanners never write), get null and the caller's default.
 */
import { isTiff, tiffPageOffsets } from './tiff-pages.js';

const plausible = (dpi: number): number | null =>
  Number.isFinite(dpi) && dpi >= 100 && dpi <= 1200 ? Math.round(dpi) : null;

function pngDpi(view: DataView): number | null {
  let at = 8;
  while (at + 12 <= view.byteLength) {
    const length = view.getUint32(at);
    const type = view.getUint32(at + 4);
    if (type === 0x70485973 && length === 9 && at + 17 <= view.byteLength && view.getUint8(at + 16) === 1) {
      return plausible(view.getUint32(at + 8) * 0.0254); // pixels per metre
    }
    if (type === 0x49444154) return null; // pHYs must come before the image data
    at += 12 + length;
  }
  return null;
}

function jpegDpi(view: DataView): number | null {
  // JFIF APP0 right after SOI: "JFIF\0", version, units (1 = per inch, 2 = per cm), X density.
  if (view.byteLength < 18 || view.getUint16(2) !== 0xffe0 || view.getUint32(6) !== 0x4a464946) return null;
  const units = view.getUint8(13);
  const x = view.getUint16(14);
  return units === 1 ? plausible(x) : units === 2 ? plausible(x * 2.54) : null;
}

function tiffDpi(data: Uint8Array, view: DataView, index: number): number | null {
  const ifd = tiffPageOffsets(data)[index];
  if (ifd === undefined) return null;
  const le = data[0] === 0x49;
  const count = view.getUint16(ifd, le);
  let x: number | null = null;
  let unit = 2;
  for (let i = 0; i < count && ifd + 2 + i * 12 + 12 <= data.length; i++) {
    const e = ifd + 2 + i * 12;
    const tag = view.getUint16(e, le);
    if (tag === 296) unit = view.getUint16(e + 8, le);
    if (tag === 282) {
      const at = view.getUint32(e + 8, le);
      if (at + 8 <= data.length && view.getUint32(at + 4, le) > 0)
        x = view.getUint32(at, le) / view.getUint32(at + 4, le);
    }
  }
  if (x === null) return null;
  return unit === 3 ? plausible(x * 2.54) : unit === 2 ? plausible(x) : null;
}

/** Scan resolution of page `index` (0-based; TIFF pages each have their own), or null when unknown. */
export function imageDpi(data: Uint8Array, index = 0): number | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (isTiff(data)) return tiffDpi(data, view, index);
  if (data.length >= 8 && view.getUint32(0) === 0x89504e47) return pngDpi(view);
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8) return jpegDpi(view);
  return null;
}

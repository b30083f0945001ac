/**
 * Whether a PNG is intact enough for @napi-rs/canvas to decode. Its decoder crashes the whole process
 * (a segfault, measured with 0.1.100) on any image it cannot decode, so an uploaded image reaches it only
 * after this check: every chunk's CRC, IHDR first and IEND last, a palette where one is needed, and the
 * image data inflating to exactly the bytes its size needs, each row starting with a valid filter type.
 * Anything else (and every JPEG, WebP or TIFF) is decoded by leptonica inside the OCR engine instead, where
 * a bad file is an error, not a crash. Interlaced PNGs take that route too (rare in scans).
 */
// zlib's own CRC-32 (Node 20.15+): ten times a table-driven one in JavaScript, ~20 ms of a 300 dpi page scan.
import { crc32, inflateSync } from 'node:zlib';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function isPng(data: Uint8Array): boolean {
  return data.length >= 8 && SIGNATURE.every((b, i) => data[i] === b);
}

/** Channels per pixel for each PNG colour type. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

interface Header {
  width: number;
  height: number;
  depth: number;
  colour: number;
  interlace: number;
}

function readHeader(view: DataView, at: number, length: number): Header | null {
  if (length !== 13) return null;
  const h = {
    width: view.getUint32(at),
    height: view.getUint32(at + 4),
    depth: view.getUint8(at + 8),
    colour: view.getUint8(at + 9),
    interlace: view.getUint8(at + 12),
  };
  const ok =
    h.width > 0 &&
    h.height > 0 &&
    h.width <= 100_000 &&
    h.height <= 100_000 &&
    (DEPTHS[h.colour] ?? []).includes(h.depth);
  return ok && view.getUint8(at + 10) === 0 && view.getUint8(at + 11) === 0 && h.interlace === 0 ? h : null;
}

function pixelsIntact(h: Header, idat: Uint8Array[]): boolean {
  const rowBytes = 1 + Math.ceil((h.width * (CHANNELS[h.colour] ?? 1) * h.depth) / 8);
  const expected = rowBytes * h.height;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + 1 });
  } catch {
    return false;
  }
  if (raw.length !== expected) return false;
  for (let at = 0; at < expected; at += rowBytes) if ((raw[at] as number) > 4) return false;
  return true;
}

export function isIntactPng(data: Uint8Array): boolean {
  if (!isPng(data)) return false;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 8;
  let header: Header | null = null;
  let palette = false;
  const idat: Uint8Array[] = [];
  while (at + 12 <= data.length) {
    const length = view.getUint32(at);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > data.length) return false;
    const type = String.fromCharCode(...data.subarray(at + 4, at + 8));
    if (crc32(data.subarray(at + 4, at + 8 + length)) !== view.getUint32(at + 8 + length)) return false;
    if (!header) {
      if (type !== 'IHDR') return false;
      header = readHeader(view, at + 8, length);
      if (!header) return false;
    } else if (type === 'PLTE') {
      palette = true;
    } else if (type === 'IDAT') {
      idat.push(data.subarray(at + 8, at + 8 + length));
    } else if (type === 'IEND') {
      return end === data.length && idat.length > 0 && (header.colour !== 3 || palette) && pixelsIntact(header, idat);
    }
    at = end;
  }
  return false;
}

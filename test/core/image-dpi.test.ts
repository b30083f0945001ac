/** Scan resolution read from image files (PNG pHYs, JPEG JFIF, TIFF XResolution). */
import { describe, expect, it } from 'vitest';

import { imageDpi } from '../../server/core/ocr/image-dpi.js';
import { greyTiff } from '../helpers/make-scan.js';

function pngWithPhys(pixelsPerMetre: number | null): Uint8Array {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const chunk = (type: string, body: number[]): number[] => {
    const len = body.length;
    return [
      len >>> 24,
      (len >>> 16) & 255,
      (len >>> 8) & 255,
      len & 255,
      ...[...type].map((c) => c.charCodeAt(0)),
      ...body,
      0,
      0,
      0,
      0,
    ];
  };
  const u32 = (v: number): number[] => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
  const ihdr = chunk('IHDR', [...u32(10), ...u32(10), 8, 0, 0, 0, 0]);
  const phys = pixelsPerMetre === null ? [] : chunk('pHYs', [...u32(pixelsPerMetre), ...u32(pixelsPerMetre), 1]);
  return new Uint8Array([...sig, ...ihdr, ...phys, ...chunk('IDAT', [0]), ...chunk('IEND', [])]);
}

describe('imageDpi', () => {
  it('reads PNG pHYs in pixels per metre', () => {
    expect(imageDpi(pngWithPhys(11811))).toBe(300);
    expect(imageDpi(pngWithPhys(7874))).toBe(200);
    expect(imageDpi(pngWithPhys(null))).toBeNull();
    // 72 dpi is a screen default, not a scan resolution.
    expect(imageDpi(pngWithPhys(2835))).toBeNull();
  });

  it('reads JPEG JFIF density per inch and per centimetre', () => {
    const jfif = (units: number, density: number) =>
      new Uint8Array([
        0xff,
        0xd8,
        0xff,
        0xe0,
        0,
        16,
        0x4a,
        0x46,
        0x49,
        0x46,
        0,
        1,
        1,
        units,
        density >> 8,
        density & 255,
        density >> 8,
        density & 255,
        0,
        0,
      ]);
    expect(imageDpi(jfif(1, 400))).toBe(400);
    expect(imageDpi(jfif(2, 118))).toBe(300);
    expect(imageDpi(jfif(0, 1))).toBeNull();
  });

  it('reads each TIFF page its own XResolution', () => {
    const page = (dpi: number) => ({ width: 4, height: 4, dpi, data: new Uint8Array(16).fill(255) });
    const tiff = greyTiff([page(150), page(600)]);
    expect(imageDpi(tiff, 0)).toBe(150);
    expect(imageDpi(tiff, 1)).toBe(600);
    expect(imageDpi(tiff, 2)).toBeNull();
  });
});

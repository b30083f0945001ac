/** The PNG check that keeps broken uploads away from @napi-rs/canvas's decoder (which crashes on them). */
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';

import { isIntactPng, isPng } from '../../server/core/ocr/png-check.js';

async function samplePng(): Promise<Buffer> {
  const canvas = createCanvas(120, 40);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, 120, 40);
  ctx.fillStyle = '#000000';
  ctx.fillText('intact', 10, 25);
  return canvas.encodeSync('png');
}

describe('isIntactPng', () => {
  it('accepts a PNG as an encoder writes it', async () => {
    const png = await samplePng();
    expect(isPng(png)).toBe(true);
    expect(isIntactPng(png)).toBe(true);
  });

  it('refuses truncated, corrupted, padded and non-PNG bytes', async () => {
    const png = await samplePng();
    expect(isIntactPng(png.subarray(0, 64))).toBe(false);
    expect(isIntactPng(png.subarray(0, png.length >> 1))).toBe(false);
    expect(isIntactPng(png.subarray(0, png.length - 1))).toBe(false);
    const flipped = Buffer.from(png);
    flipped[png.length >> 1] = (flipped[png.length >> 1] as number) ^ 0x5a;
    expect(isIntactPng(flipped)).toBe(false);
    expect(isIntactPng(Buffer.concat([png, Buffer.from('trailing')]))).toBe(false);
    expect(isIntactPng(new TextEncoder().encode('not an image at all'))).toBe(false);
    expect(isIntactPng(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe(false);
  });
});

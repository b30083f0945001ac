/**
 * The grey images OCR reads: a canvas (a rendered page) and a decoded image to grey, and the dark-band pass.
 * Both readers of a canvas (its pixels in place for a page-sized canvas, getImageData strips for a larger one)
 * must give the same bytes as BT.601 luma of getImageData's pixels, on white paper where a pixel is see-through.
 */
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';

import { canvasToGrey, decodeToGrey, normalisePolarity, type GreyRaster } from '../../server/core/ocr/raster.js';

/** Luma of getImageData's (un-premultiplied) pixels, composited on white. */
function expectedGrey(canvas: Canvas): Uint8Array {
  const { width, height } = canvas;
  const px = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) {
    const a = px[i * 4 + 3] ?? 255;
    const luma = ((px[i * 4] ?? 0) * 77 + (px[i * 4 + 1] ?? 0) * 150 + (px[i * 4 + 2] ?? 0) * 29) >> 8;
    out[i] = a === 255 ? luma : Math.floor((luma * a) / 255) + 255 - a;
  }
  return out;
}

/** Coloured shapes and text on white, with a see-through hole and a corner never painted. */
function colourPage(width: number, height: number): Canvas {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height - 40);
  ctx.fillStyle = 'rgb(200, 30, 90)';
  ctx.fillRect(10, 10, width / 2, height / 3);
  ctx.fillStyle = 'rgb(20, 160, 240)';
  ctx.fillRect(width / 3, height / 2, width / 3, 60);
  ctx.fillStyle = '#123456';
  ctx.font = '48px sans-serif';
  ctx.fillText('Quarterly results', 40, height / 2 - 20);
  ctx.clearRect(width - 80, 20, 40, 40);
  return canvas;
}

function differing(a: Uint8Array, b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

describe('grey page images', () => {
  it('reads a page-sized canvas and one beyond the in-place limit to the same luma as getImageData', () => {
    // 1511 px wide (rows of an odd width) and, second, 13.5 Mpx: read through getImageData strips.
    for (const [w, h] of [
      [1511, 977],
      [3000, 4500],
    ] as const) {
      const canvas = colourPage(w, h);
      const grey = canvasToGrey(canvas);
      expect(grey).toMatchObject({ width: w, height: h });
      expect(differing(grey.data, expectedGrey(canvas))).toBe(0);
      // Dark ink, colour, white paper, and see-through pixels as white paper (not black).
      expect(grey.data[(Math.floor(h / 2) + 30) * w + Math.floor(w / 2)]).toBe((20 * 77 + 160 * 150 + 240 * 29) >> 8);
      expect(grey.data[30 * w + (w - 60)]).toBe(255);
      expect(grey.data[(h - 1) * w]).toBe(255);
    }
  });

  it('decodes a colour PNG taller than one strip to the luma of its pixels', async () => {
    const canvas = colourPage(1200, 2600);
    const png = canvas.encodeSync('png');
    const grey = await decodeToGrey(png);
    expect(grey).toMatchObject({ width: 1200, height: 2600 });
    expect(differing(grey.data, expectedGrey(canvas))).toBe(0);
  });
});

describe('light text on dark bands', () => {
  const W = 1200;
  const H = 600;
  const page = (paint: (d: Uint8Array) => void): GreyRaster => {
    const data = new Uint8Array(W * H).fill(255);
    paint(data);
    return { width: W, height: H, data };
  };
  const band = (d: Uint8Array, y0: number, y1: number, x0: number, x1: number, v = 20): void => {
    for (let y = y0; y < y1; y++) d.fill(v, y * W + x0, y * W + x1);
  };

  it('inverts a dark band with light letters, bridging the rows the letters interrupt, and nothing else', () => {
    const r = page((d) => {
      band(d, 100, 180, 50, 1000);
      // Light letters 40 px tall inside the band: their rows hold dark runs broken by light gaps over 40 px.
      for (let y = 120; y < 160; y++) for (let x = 100; x < 950; x += 90) d.fill(240, y * W + x, y * W + x + 50);
      // Ordinary text below: short dark strokes, never a band.
      for (let y = 300; y < 330; y++) for (let x = 60; x < 1100; x += 12) d.fill(0, y * W + x, y * W + x + 4);
    });
    const out = normalisePolarity(r);
    expect(out).not.toBe(r);
    expect(out.data[110 * W + 500]).toBe(235); // band, now light
    expect(out.data[140 * W + 120]).toBe(15); // a letter in it, now dark
    expect(out.data[140 * W + 980]).toBe(235); // band beside the letters, bridged
    expect(out.data[310 * W + 60]).toBe(0); // text below untouched
    expect(out.data[50 * W + 500]).toBe(255); // paper untouched
    expect(r.data[110 * W + 500]).toBe(20); // the input is not changed
  });

  it('returns a page without a band as it is: runs just short of a band, or too light, do not count', () => {
    const r = page((d) => {
      band(d, 100, 180, 50, 199); // 149 px: one short of a band at 300 dpi
      band(d, 300, 380, 50, 900, 130); // long but not dark (128 and above is light)
      // 75% needed: 3 dark of every 5 (60%) over a long run, every gap within a letter's width.
      for (let y = 450; y < 500; y++) for (let x = 50; x < 1000; x += 5) d.fill(0, y * W + x, y * W + x + 3);
    });
    expect(normalisePolarity(r)).toBe(r);
    // At half resolution the same 149 px run is a band (the minimum is 75 px there).
    expect(normalisePolarity(r, 0.5).data[120 * W + 100]).toBe(235);
  });
});

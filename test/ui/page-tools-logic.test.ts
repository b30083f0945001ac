import { describe, expect, it } from 'vitest';
import type { Block } from '../../renderer/src/api/types.js';
import { zoomImageWidth } from '../../renderer/src/review/page-images.js';
import { cropRegion } from '../../renderer/src/review/region-crop.js';
import { offeredText } from '../../renderer/src/review/reread-region.js';
import { tallyPage } from '../../renderer/src/review/thumbnails.js';

// The page tools' decisions that need no browser: what a re-read offers the selected block, how large a
// zoomed page image to ask for, the region cut around a block, and a page's status in the thumbnail strip.

describe('offeredText', () => {
  const answer = {
    confidence: 91,
    read: [
      { text: 'First line ', block_id: 'b1' },
      { text: 'a caption', block_id: null },
    ],
    suggestions: [
      { block_id: 'b1', suggested_text: 'First line' },
      { block_id: 'b2', suggested_text: null },
    ],
  };
  it("takes the server's suggestion for the block when the region covers it", () => {
    expect(offeredText(answer, 'b1')).toBe('First line');
  });
  it('takes everything read in the region when it covers too little of the block for a suggestion', () => {
    expect(offeredText(answer, 'b2')).toBe('First line\na caption');
    expect(offeredText(answer, 'b9')).toBe('First line\na caption');
  });
  it('offers nothing when nothing was read', () => {
    expect(offeredText({ confidence: 0, read: [{ text: '  ', block_id: null }], suggestions: [] }, 'b1')).toBeNull();
  });
});

describe('zoomImageWidth', () => {
  it('asks for nothing at or below fit, and for the zoomed width in steps of 400 above it, up to 3200', () => {
    expect(zoomImageWidth(800, 1)).toBeNull();
    expect(zoomImageWidth(800, 0.5)).toBeNull();
    expect(zoomImageWidth(800, 1.25)).toBe(1200);
    expect(zoomImageWidth(800, 2)).toBe(1600);
    expect(zoomImageWidth(1200, 6)).toBe(3200);
    // An image already at the cap is sharp enough.
    expect(zoomImageWidth(3200, 2)).toBeNull();
    expect(zoomImageWidth(0, 2)).toBeNull();
  });
});

describe('cropRegion', () => {
  it('widens the box by the margin and keeps it on the page', () => {
    const page = { width: 612, height: 792 };
    expect(cropRegion({ x0: 100, y0: 200, x1: 300, y1: 220 }, page)).toEqual({ x0: 96, y0: 196, x1: 304, y1: 224 });
    expect(cropRegion({ x0: 1, y0: 2, x1: 611, y1: 790 }, page)).toEqual({ x0: 0, y0: 0, x1: 612, y1: 792 });
  });
});

describe('tallyPage', () => {
  it('counts a page by status, and flagged blocks only while pending', () => {
    const b = (status: Block['status'], flagged = false) => ({ status, flagged }) as Block;
    expect(
      tallyPage([b('pending', true), b('pending'), b('approved', true), b('edited'), b('rejected'), undefined]),
    ).toEqual({
      pending: 2,
      approved: 1,
      edited: 1,
      rejected: 1,
      flagged: 1,
      blocks: 5,
    });
  });
});

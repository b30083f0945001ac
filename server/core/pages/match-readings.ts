/**
 * Which existing blocks a re-read region covers, and which existing block each newly read block falls in.
 * Geometry only (boxes in page points): OCR of a region rarely splits text exactly as the first reading did,
 * so a new block goes to the existing block it overlaps most, and an existing block collects every new block
 * that went to it.
 */
import type { BBox } from '../extract/types.js';

const area = (b: BBox): number => Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);

function overlap(a: BBox, b: BBox): number {
  return area({
    x0: Math.max(a.x0, b.x0),
    y0: Math.max(a.y0, b.y0),
    x1: Math.min(a.x1, b.x1),
    y1: Math.min(a.y1, b.y1),
  });
}

/** A block counts as covered when at least half of it lies in the region (the whole page when null). */
export function coveredBy<T extends { bbox: BBox | null }>(blocks: readonly T[], region: BBox | null): T[] {
  return blocks.filter((b) => b.bbox && (!region || overlap(b.bbox, region) >= 0.5 * area(b.bbox)));
}

/**
 * For each reading, the index in `blocks` of the block it overlaps most, or -1 when that is under a third
 * of the reading's own area (text the first reading missed, or noise).
 */
export function assignReadings(
  readings: ReadonlyArray<{ bbox: BBox | null }>,
  blocks: ReadonlyArray<{ bbox: BBox | null }>,
): number[] {
  return readings.map((r) => {
    if (!r.bbox) return -1;
    let best = -1;
    let bestArea = 0;
    blocks.forEach((b, i) => {
      const a = b.bbox ? overlap(r.bbox as BBox, b.bbox) : 0;
      if (a > bestArea) {
        best = i;
        bestArea = a;
      }
    });
    return bestArea >= area(r.bbox) / 3 ? best : -1;
  });
}

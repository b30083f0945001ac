import type { Block } from '../api/types.js';

export interface PageSize {
  width: number;
  height: number;
}

/** A page's size and where it came from: the server (exact) or estimatePageSize (a guess to be corrected). */
export interface PageShape {
  size: PageSize;
  reported: boolean;
}

type BBox = NonNullable<Block['bbox']>;

const COMMON: PageSize[] = [
  { width: 612, height: 792 }, // US Letter
  { width: 595.28, height: 841.89 }, // A4
  { width: 612, height: 1008 }, // US Legal
  { width: 419.53, height: 595.28 }, // A5
];

/**
 * A guess at the page size in PDF points, only for servers that do not report it (GET /jobs/{id}/pages):
 * text sits inside symmetric margins on most pages, so the far edge of the text plus the near margin
 * gives the page, snapped to a common paper size when it is near one. It can be far off (an A4 paper
 * drawn ~13% too small, Letter and A4 taken for each other): never used when the server gives the size.
 */
export function estimatePageSize(boxes: Iterable<BBox>): PageSize | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = 0;
  let maxY = 0;
  for (const b of boxes) {
    minX = Math.min(minX, b.x0);
    minY = Math.min(minY, b.y0);
    maxX = Math.max(maxX, b.x1);
    maxY = Math.max(maxY, b.y1);
  }
  if (!Number.isFinite(minX) || maxX <= 0 || maxY <= 0) return null;
  const est = { width: maxX + Math.max(0, minX), height: maxY + Math.max(0, minY) };
  const fits = (p: PageSize) =>
    est.width <= p.width * 1.08 &&
    est.width >= p.width * 0.85 &&
    est.height <= p.height * 1.08 &&
    est.height >= p.height * 0.8;
  const distance = (p: PageSize) => (est.width / p.width - 1) ** 2 + (est.height / p.height - 1) ** 2;
  // Letter and A4 both fit many estimates: the nearer one wins.
  const near = COMMON.filter(fits).sort((a, b) => distance(a) - distance(b))[0];
  return near ?? est;
}

/** A box as percentages of the page, so it scales with the drawn page at any zoom. */
export function boxPercent(b: BBox, page: PageSize): { left: number; top: number; width: number; height: number } {
  const clamp = (v: number) => Math.min(100, Math.max(0, v));
  const left = clamp((b.x0 / page.width) * 100);
  const top = clamp((b.y0 / page.height) * 100);
  return { left, top, width: clamp((b.x1 / page.width) * 100) - left, height: clamp((b.y1 / page.height) * 100) - top };
}

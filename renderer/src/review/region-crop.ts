import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import type { PageSize } from './page-geometry.js';

type BBox = NonNullable<Block['bbox']>;

/** Points of page kept around the block, so the first and last letters are not cut. */
const MARGIN = 4;
/** The crop is drawn at most this many CSS pixels tall and at the pane's width. */
const MAX_HEIGHT = 140;

/** The block's box widened by `margin` points and kept on the page. */
export function cropRegion(b: BBox, page: PageSize, margin = MARGIN): BBox {
  return {
    x0: Math.max(0, b.x0 - margin),
    y0: Math.max(0, b.y0 - margin),
    x1: Math.min(page.width, b.x1 + margin),
    y1: Math.min(page.height, b.y1 + margin),
  };
}

/**
 * Copies `region` (points on a page of `page` size) of the page image into `canvas`, at the image's own
 * resolution up to `maxWidth` x `maxHeight` device pixels, so the words can be read beside their text.
 * Returns false when there is nothing to draw (no area).
 */
export function drawRegion(
  canvas: HTMLCanvasElement,
  image: HTMLImageElement,
  region: BBox,
  page: PageSize,
  maxWidth: number,
  maxHeight: number,
): boolean {
  const sx = (region.x0 / page.width) * image.naturalWidth;
  const sy = (region.y0 / page.height) * image.naturalHeight;
  const sw = ((region.x1 - region.x0) / page.width) * image.naturalWidth;
  const sh = ((region.y1 - region.y0) / page.height) * image.naturalHeight;
  if (sw < 1 || sh < 1) return false;
  const dpr = window.devicePixelRatio || 1;
  // Never enlarged past the image's pixels times the screen's: that would only blur.
  const scale = Math.min(dpr, (maxWidth * dpr) / sw, (maxHeight * dpr) / sh);
  canvas.width = Math.max(1, Math.round(sw * scale));
  canvas.height = Math.max(1, Math.round(sh * scale));
  canvas.style.width = `${canvas.width / dpr}px`;
  canvas.style.height = `${canvas.height / dpr}px`;
  const g = canvas.getContext('2d');
  if (!g) return false;
  g.imageSmoothingQuality = 'high';
  g.drawImage(image, sx, sy, sw, sh, 0, 0, canvas.width, canvas.height);
  return true;
}

/**
 * The selected block's region cut from the page image, above the block list, so the words on the page
 * sit beside the text being reviewed or edited (the page itself may be scrolled or zoomed elsewhere).
 * Hidden when the block has no box or the page has no image.
 */
export class RegionCrop {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly caption: HTMLElement;
  private key = '';

  constructor() {
    this.canvas = h('canvas', { class: 'crop-canvas', role: 'img' });
    this.caption = h('div', { class: 'crop-caption muted' });
    this.element = h(
      'figure',
      { class: 'region-crop', hidden: true, 'aria-label': "The selected block's region on the page" },
      this.caption,
      this.canvas,
    );
  }

  /** Shows `block`'s region of the drawn page; redraws only when the block, its box, the image or the width changed. */
  show(block: Block | undefined, drawn: { page: number; size: PageSize | null; image: HTMLImageElement | null }): void {
    const { size, image } = drawn;
    if (!block?.bbox || !size || !image || block.page !== drawn.page) {
      this.key = '';
      this.element.hidden = true;
      return;
    }
    const region = cropRegion(block.bbox, size);
    this.element.hidden = false;
    const width = Math.max(120, this.element.clientWidth - 18 || 320);
    const key = `${block.block_id}:${JSON.stringify(region)}:${image.currentSrc}:${width}`;
    if (key === this.key) return;
    this.key = drawRegion(this.canvas, image, region, size, width, MAX_HEIGHT) ? key : '';
    this.element.hidden = !this.key;
    this.element.dataset.block = block.block_id;
    this.caption.textContent = `Block ${block.order_index + 1} on page ${block.page}, as on the page`;
    this.canvas.setAttribute('aria-label', `Page ${block.page} region of block ${block.order_index + 1}`);
  }
}

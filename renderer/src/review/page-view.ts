import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label } from '../ui/format.js';
import { effectiveType } from './block-store.js';
import { boxPercent, type PageSize } from './page-geometry.js';
import type { PageImages } from './page-images.js';
import { isFlagged } from './queue-order.js';

/**
 * One page: its image when the server renders pages, else a blank sheet of the page's shape, with every
 * block's box over it (fill colour by type, outline by review status). Clicking a box selects its block.
 */
export class PageView {
  readonly element: HTMLElement;
  private readonly sheet: HTMLElement;
  private readonly img: HTMLImageElement;
  private readonly caption: HTMLElement;
  private boxes = new Map<number, HTMLElement>();
  private page = 0;
  /** The current page's size corrected by its image's aspect ratio, once the image has loaded. */
  private fitted: PageSize | null = null;
  private redraw: () => void = () => undefined;

  constructor(
    private readonly images: PageImages | null,
    private readonly sizeOf: (page: number) => PageSize | null,
    private readonly onPick: (index: number) => void,
  ) {
    this.img = h('img', { class: 'page-image', alt: '' });
    this.sheet = h('div', { class: 'page-sheet' }, this.img);
    this.caption = h('p', { class: 'page-caption' });
    this.element = h('div', { class: 'page-view', 'aria-label': 'Page' }, this.caption, this.sheet);
    this.img.addEventListener('load', () => this.fitToImage());
  }

  /** Draws `page` with the blocks at `indices`; keeps the image when only the boxes changed. */
  show(page: number, indices: number[], blockAt: (i: number) => Block | undefined, selected: number | undefined): void {
    const pageChanged = page !== this.page;
    this.page = page;
    if (pageChanged) this.fitted = null;
    this.redraw = () => this.show(page, indices, blockAt, selected);
    const size = this.fitted ?? this.sizeOf(page);
    for (const el of this.boxes.values()) el.remove();
    this.boxes.clear();
    if (pageChanged) this.loadImage(page);
    this.caption.textContent = size ? `Page ${page}` : `Page ${page}: this document has no page layout; the list holds its blocks`;
    this.sheet.hidden = !size;
    if (!size) return;
    this.sheet.style.aspectRatio = `${size.width} / ${size.height}`;
    for (const i of indices) {
      const b = blockAt(i);
      if (!b?.bbox) continue;
      const p = boxPercent(b.bbox, size);
      const box = h('button', {
        type: 'button',
        class: `box type-${effectiveType(b)} status-${b.status}${isFlagged(b) ? ' flagged' : ''}${i === selected ? ' selected' : ''}`,
        title: `${label(effectiveType(b))}, ${b.status}`,
        'aria-label': `Block ${b.order_index + 1}, ${label(effectiveType(b))}, ${b.status}`,
        tabindex: '-1',
        'data-block': b.block_id,
        onclick: () => this.onPick(i),
      });
      box.style.left = `${p.left}%`;
      box.style.top = `${p.top}%`;
      box.style.width = `${p.width}%`;
      box.style.height = `${p.height}%`;
      this.sheet.appendChild(box);
      this.boxes.set(i, box);
    }
    this.boxes.get(selected ?? -1)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  private loadImage(page: number): void {
    this.img.removeAttribute('src');
    this.img.hidden = true;
    if (!this.images) return;
    void this.images.get(page).then((url) => {
      if (this.page !== page || !url) return;
      this.img.src = url;
      this.img.hidden = false;
    });
    void this.images.get(page + 1);
  }

  /** The image is the whole page: its aspect ratio is exact where the estimated height is not. */
  private fitToImage(): void {
    const est = this.sizeOf(this.page);
    if (!this.img.naturalWidth || !est) return;
    this.fitted = { width: est.width, height: (est.width * this.img.naturalHeight) / this.img.naturalWidth };
    this.redraw();
  }
}

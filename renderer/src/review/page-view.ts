import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label } from '../ui/format.js';
import { effectiveType } from './block-store.js';
import { boxPercent, type PageShape, type PageSize } from './page-geometry.js';
import { zoomImageWidth, type PageImages, type ZoomImages } from './page-images.js';
import { isFlagged } from './queue-order.js';
import { PageZoom } from './zoom.js';

/**
 * One page: its image when the server renders pages, else a blank sheet of the page's shape, with every
 * block's box over it (fill colour by type, outline by review status). Clicking a box selects its block.
 * Boxes are drawn on the page size the server reports; until it has answered, none are drawn. The bar
 * above the page holds the zoom and the page tools (re-read a region); only the page under it scrolls.
 */
export class PageView {
  readonly element: HTMLElement;
  private readonly sheet: HTMLElement;
  private readonly img: HTMLImageElement;
  private readonly caption: HTMLElement;
  private readonly tools: HTMLElement;
  /** The pane that scrolls (and pans) under the bar. */
  private readonly scroller: HTMLElement;
  readonly zoom: PageZoom;
  /** Called after every draw and once the page image is in: what shows the selected block's region follows. */
  onDrawn: () => void = () => undefined;
  /** Settles when the first page image has loaded or failed: thumbnails wait for it, so the page comes first. */
  readonly firstImage: Promise<void>;
  private firstImageDone: () => void = () => undefined;
  private size: PageSize | null = null;
  /** Width of the ordinary image of the page, and of the sharper one shown instead when zoomed (0: none). */
  private baseWidth = 0;
  private sharpWidth = 0;
  private boxes = new Map<number, { key: string; el: HTMLElement }>();
  private page = 0;
  /** An estimated page size corrected by the image's aspect ratio, once the image has loaded. */
  private fitted: PageSize | null = null;
  private redraw: () => void = () => undefined;

  constructor(
    private readonly images: PageImages | null,
    /** undefined: the size is still being asked for; null: the document has no page layout. */
    private readonly sizeOf: (page: number) => PageShape | null | undefined,
    private readonly onPick: (index: number) => void,
    /** Larger renderings for a zoomed page; without them the ordinary image is enlarged. */
    private readonly zoomImages: ZoomImages | null = null,
  ) {
    this.img = h('img', { class: 'page-image', alt: '', draggable: 'false' });
    this.sheet = h('div', { class: 'page-sheet' }, this.img);
    this.caption = h('p', { class: 'page-caption' });
    this.tools = h('span', { class: 'page-tools' });
    this.scroller = h('div', { class: 'page-scroll' }, this.sheet);
    this.zoom = new PageZoom(this.scroller, this.sheet);
    this.element = h(
      'div',
      { class: 'page-view', 'aria-label': 'Page' },
      h('div', { class: 'page-bar' }, this.caption, this.zoom.controls, this.tools),
      this.scroller,
    );
    this.firstImage = new Promise((resolve) => (this.firstImageDone = resolve));
    this.zoom.onChange = () => this.sharpen();
    this.img.addEventListener('load', () => {
      this.firstImageDone();
      if (!this.sharpWidth) this.baseWidth = this.img.naturalWidth;
      this.sharpen();
      this.fitToImage();
      this.onDrawn();
    });
    this.img.addEventListener('error', () => this.firstImageDone());
  }

  /** Draws `page` with the blocks at `indices`; keeps the image when only the boxes changed. */
  show(page: number, indices: number[], blockAt: (i: number) => Block | undefined, selected: number | undefined): void {
    const pageChanged = page !== this.page;
    this.page = page;
    if (pageChanged) this.fitted = null;
    this.redraw = () => this.show(page, indices, blockAt, selected);
    const shape = this.sizeOf(page);
    const size = shape && (shape.reported ? shape.size : (this.fitted ?? shape.size));
    if (pageChanged) this.loadImage(page);
    if (!size) {
      for (const old of this.boxes.values()) old.el.remove();
      this.boxes.clear();
    }
    this.caption.textContent =
      size !== null ? `Page ${page}` : `Page ${page}: this document has no page layout; the list holds its blocks`;
    this.sheet.hidden = !size;
    this.size = size ?? null;
    if (!size) return this.onDrawn();
    this.sheet.style.aspectRatio = `${size.width} / ${size.height}`;
    const sizeKey = `${page}:${size.width}x${size.height}`;
    const keep = new Map<number, { key: string; el: HTMLElement }>();
    for (const i of indices) {
      const b = blockAt(i);
      if (!b?.bbox) continue;
      // Moving the selection along a page only changes two boxes; the rest are kept as they are.
      const key = `${sizeKey}:${b.block_id}:${b.version}`;
      const have = this.boxes.get(i);
      if (have?.key === key) {
        have.el.classList.toggle('selected', i === selected);
        keep.set(i, have);
        this.boxes.delete(i);
        continue;
      }
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
      keep.set(i, { key, el: box });
    }
    for (const old of this.boxes.values()) old.el.remove();
    this.boxes = keep;
    this.reveal(this.boxes.get(selected ?? -1)?.el);
    this.onDrawn();
  }

  /** Adds a control to the bar above the page. */
  addTool(el: HTMLElement): void {
    this.tools.append(el);
  }

  /** The page drawn, the size its boxes are in (null: none drawn) and its image when loaded. */
  drawn(): { page: number; size: PageSize | null; sheet: HTMLElement; image: HTMLImageElement | null } {
    const ready = !this.img.hidden && this.img.complete && this.img.naturalWidth > 0;
    return { page: this.page, size: this.size, sheet: this.sheet, image: ready ? this.img : null };
  }

  /**
   * Scrolls the page pane (only it) so the selected box is visible. Not scrollIntoView: that lays out and
   * scrolls every ancestor and cost ~12 ms a key press on a 10,000-block job.
   */
  private reveal(box: HTMLElement | undefined): void {
    if (!box) return;
    const pane = this.scroller;
    const top = this.sheet.offsetTop + box.offsetTop;
    const bottom = top + box.offsetHeight;
    if (top < pane.scrollTop) pane.scrollTop = top - 8;
    else if (bottom > pane.scrollTop + pane.clientHeight) pane.scrollTop = bottom - pane.clientHeight + 8;
    // Zoomed in, the box may also be off to a side.
    const left = this.sheet.offsetLeft + box.offsetLeft;
    const right = left + box.offsetWidth;
    if (left < pane.scrollLeft) pane.scrollLeft = left - 8;
    else if (right > pane.scrollLeft + pane.clientWidth)
      pane.scrollLeft = Math.min(left - 8, right - pane.clientWidth + 8);
  }

  /** Zoomed in past what the ordinary image holds: a larger rendering of the page replaces it once loaded. */
  private sharpen(): void {
    if (!this.zoomImages || this.img.hidden) return;
    const want = zoomImageWidth(this.baseWidth, this.zoom.value);
    if (!want || want <= this.sharpWidth) return;
    const page = this.page;
    void this.zoomImages.get(page, want).then((url) => {
      if (!url || this.page !== page || want <= this.sharpWidth) return;
      this.sharpWidth = want;
      this.img.src = url;
    });
  }

  private loadImage(page: number): void {
    this.sharpWidth = 0;
    this.img.removeAttribute('src');
    this.img.hidden = true;
    if (!this.images) return this.firstImageDone();
    const images = this.images;
    void images.get(page).then((url) => {
      if (!url) this.firstImageDone();
      // The next page is asked for once this one is in: it must never delay the page on screen.
      if (url) void images.get(page + 1);
      if (this.page !== page || !url) return;
      this.img.src = url;
      this.img.hidden = false;
    });
  }

  /** The image is the whole page: its aspect ratio is exact where an estimated height is not. A reported size needs no fitting. */
  private fitToImage(): void {
    const shape = this.sizeOf(this.page);
    if (!this.img.naturalWidth || !shape || shape.reported) return;
    this.fitted = {
      width: shape.size.width,
      height: (shape.size.width * this.img.naturalHeight) / this.img.naturalWidth,
    };
    this.redraw();
  }
}

import { h } from './dom.js';

export interface VirtualListOptions {
  /** Number of rows. */
  count(): number;
  /** Height of row `i` in pixels; rows change height (a row being edited is taller). */
  heightOf(i: number): number;
  /** A key that changes whenever row `i` must be drawn again (id + version + selection…). */
  keyOf(i: number): string;
  render(i: number): HTMLElement;
  /** Rows drawn beyond the visible ones on each side, so fast scrolling does not show gaps. */
  overscan?: number;
  label: string;
}

/**
 * A list that keeps only the visible rows (plus a margin) in the DOM, absolutely positioned inside a
 * spacer as tall as all rows. Offsets are a prefix sum recomputed only when heights change, and the
 * visible range is found by binary search, so 10,000 rows cost the same to scroll as 50. Rows whose key
 * did not change are reused rather than rebuilt.
 */
export class VirtualList {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private offsets = new Float64Array(1);
  private rows = new Map<number, { key: string; el: HTMLElement; top: number; height: number }>();
  private frame = 0;
  private stale = true;

  constructor(private readonly opts: VirtualListOptions) {
    this.spacer = h('div', { class: 'vlist-spacer' });
    // In the Tab order: the list is where the screen's keys act, so a keyboard user must be able to reach it.
    this.element = h('div', { class: 'vlist', role: 'listbox', 'aria-label': opts.label, tabindex: '0' }, this.spacer);
    this.element.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  /** Heights or the row count changed: recompute offsets, then draw. */
  invalidate(): void {
    this.stale = true;
    this.schedule();
  }

  /** Draw now (rows whose key changed are rebuilt). */
  update(): void {
    if (this.stale) this.measure();
    this.draw();
  }

  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  /** Scrolls just enough for row `i` to be fully visible. */
  scrollToIndex(i: number, align: 'nearest' | 'center' = 'nearest'): void {
    if (this.stale) this.measure();
    const top = this.offsets[i] ?? 0;
    const bottom = this.offsets[i + 1] ?? top;
    const view = this.element.clientHeight;
    const cur = this.element.scrollTop;
    if (align === 'center') this.element.scrollTop = Math.max(0, top - (view - (bottom - top)) / 2);
    else if (top < cur) this.element.scrollTop = top;
    else if (bottom > cur + view) this.element.scrollTop = bottom - view;
    this.draw();
  }

  /** The element of row `i` when it is drawn. */
  rowElement(i: number): HTMLElement | undefined {
    return this.rows.get(i)?.el;
  }

  private measure(): void {
    const n = this.opts.count();
    this.offsets = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) this.offsets[i + 1] = (this.offsets[i] ?? 0) + this.opts.heightOf(i);
    this.spacer.style.height = `${this.offsets[n] ?? 0}px`;
    this.stale = false;
  }

  private place(el: HTMLElement, top: number, height: number): void {
    el.style.transform = `translateY(${top}px)`;
    el.style.height = `${height}px`;
  }

  private indexAt(y: number): number {
    let lo = 0;
    let hi = this.offsets.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.offsets[mid] ?? 0) <= y) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  private draw(): void {
    const n = this.opts.count();
    const overscan = this.opts.overscan ?? 6;
    const top = this.element.scrollTop;
    const first = n ? Math.max(0, this.indexAt(top) - overscan) : 0;
    const last = n ? Math.min(n - 1, this.indexAt(top + Math.max(this.element.clientHeight, 400)) + overscan) : -1;
    for (const [i, r] of this.rows) {
      if (i < first || i > last) {
        r.el.remove();
        this.rows.delete(i);
      }
    }
    for (let i = first; i <= last; i++) {
      const key = this.opts.keyOf(i);
      const top = this.offsets[i] ?? 0;
      const height = (this.offsets[i + 1] ?? top) - top;
      const have = this.rows.get(i);
      if (have && have.key === key) {
        // Same content, maybe moved (a row above grew): place it again rather than rebuild it.
        if (have.top !== top || have.height !== height) this.place(have.el, top, height);
        have.top = top;
        have.height = height;
        continue;
      }
      const el = this.opts.render(i);
      el.classList.add('vlist-row');
      this.place(el, top, height);
      if (have) have.el.replaceWith(el);
      else this.spacer.appendChild(el);
      this.rows.set(i, { key, el, top, height });
    }
  }
}

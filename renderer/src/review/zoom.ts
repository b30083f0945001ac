import { h } from '../ui/dom.js';

/** Zoom levels, as a share of the pane's width; 1 is "fit width", the desk's default. */
const ZOOM_STEPS = [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6] as const;
const MIN_ZOOM = ZOOM_STEPS[0];
const MAX_ZOOM = ZOOM_STEPS[ZOOM_STEPS.length - 1] ?? 6;

/** Pointer travel (px) before a press on the page becomes a pan rather than a click on a box. */
const DRAG_START = 4;

/**
 * Zoom and pan of the page in its scrolling pane. Zooming only changes the sheet's width (its height
 * follows from its aspect ratio) and the boxes are percentages of the sheet, so they stay on their text
 * at every zoom. The point under the pointer (wheel) or the middle of the pane (buttons, keys) stays where
 * it is. A press dragged more than a few pixels pans the pane and does not click the box it began on.
 */
export class PageZoom {
  readonly controls: HTMLElement;
  private readonly levelLabel: HTMLButtonElement;
  private readonly outButton: HTMLButtonElement;
  private readonly inButton: HTMLButtonElement;
  private level = 1;
  /** Set while a drag pans: the click that ends it must not select a box. */
  private panned = false;
  /** Pauses panning (while a region is being drawn on the page). */
  panning = true;
  /** The zoom changed (the page may want a sharper image). */
  onChange: () => void = () => undefined;

  constructor(
    private readonly pane: HTMLElement,
    private readonly sheet: HTMLElement,
  ) {
    this.outButton = h(
      'button',
      {
        type: 'button',
        class: 'zoom-out',
        title: 'Zoom out (-)',
        'aria-label': 'Zoom out',
        onclick: () => this.step(-1),
      },
      '−',
    );
    this.levelLabel = h(
      'button',
      {
        type: 'button',
        class: 'zoom-level',
        title: 'Fit the page to the pane (0)',
        'aria-label': 'Fit width',
        onclick: () => this.set(1),
      },
      'Fit',
    );
    this.inButton = h(
      'button',
      { type: 'button', class: 'zoom-in', title: 'Zoom in (+)', 'aria-label': 'Zoom in', onclick: () => this.step(1) },
      '+',
    );
    this.controls = h(
      'span',
      { class: 'zoom-controls', role: 'group', 'aria-label': 'Zoom' },
      this.outButton,
      this.levelLabel,
      this.inButton,
    );
    pane.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    pane.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    // The page image would otherwise be dragged out as a file, which cancels the pan.
    pane.addEventListener('dragstart', (e) => e.preventDefault());
    // Capture: the click that ends a pan is stopped before it reaches the box under the pointer.
    pane.addEventListener(
      'click',
      (e) => {
        if (!this.panned) return;
        this.panned = false;
        e.stopPropagation();
        e.preventDefault();
      },
      true,
    );
    this.show();
  }

  get value(): number {
    return this.level;
  }

  /** One step in (1) or out (-1) of ZOOM_STEPS, about the pane's middle or the given client point. */
  step(dir: 1 | -1, at?: { x: number; y: number }): void {
    const next =
      dir > 0
        ? ZOOM_STEPS.find((z) => z > this.level + 1e-9)
        : [...ZOOM_STEPS].reverse().find((z) => z < this.level - 1e-9);
    if (next === undefined) return;
    this.set(next, at);
  }

  /** Sets the zoom, keeping the page point under `at` (default: the pane's middle) where it is on screen. */
  set(level: number, at?: { x: number; y: number }): void {
    const clamped = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, level));
    if (clamped === this.level) return this.show();
    const paneRect = this.pane.getBoundingClientRect();
    const point = at ?? { x: paneRect.left + this.pane.clientWidth / 2, y: paneRect.top + this.pane.clientHeight / 2 };
    const before = this.sheet.getBoundingClientRect();
    const fx = before.width ? (point.x - before.left) / before.width : 0.5;
    const fy = before.height ? (point.y - before.top) / before.height : 0.5;
    this.level = clamped;
    this.show();
    const after = this.sheet.getBoundingClientRect();
    this.pane.scrollLeft += after.left + fx * after.width - point.x;
    this.pane.scrollTop += after.top + fy * after.height - point.y;
    this.onChange();
  }

  private show(): void {
    this.sheet.style.width = `${this.level * 100}%`;
    this.pane.classList.toggle('zoomed', this.level > 1);
    this.levelLabel.textContent = this.level === 1 ? 'Fit' : `${Math.round(this.level * 100)}%`;
    this.pane.dataset.zoom = String(this.level);
    this.outButton.disabled = this.level <= MIN_ZOOM;
    this.inButton.disabled = this.level >= MAX_ZOOM;
  }

  /** Ctrl+wheel (and a trackpad pinch, which chromium sends as one) zooms; a plain wheel scrolls as usual. */
  private onWheel(e: WheelEvent): void {
    if (!e.ctrlKey && !e.metaKey) return;
    e.preventDefault();
    if (e.deltaY) this.step(e.deltaY < 0 ? 1 : -1, { x: e.clientX, y: e.clientY });
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || !this.panning || (e.target as HTMLElement).closest('.page-bar')) return;
    const start = { x: e.clientX, y: e.clientY, left: this.pane.scrollLeft, top: this.pane.scrollTop };
    let dragging = false;
    const move = (m: PointerEvent) => {
      const dx = m.clientX - start.x;
      const dy = m.clientY - start.y;
      if (!dragging && Math.hypot(dx, dy) < DRAG_START) return;
      if (!dragging) {
        dragging = true;
        this.pane.setPointerCapture(e.pointerId);
        this.pane.classList.add('panning');
      }
      this.pane.scrollLeft = start.left - dx;
      this.pane.scrollTop = start.top - dy;
    };
    const end = () => {
      this.pane.removeEventListener('pointermove', move);
      this.pane.removeEventListener('pointerup', end);
      this.pane.removeEventListener('pointercancel', end);
      this.pane.classList.remove('panning');
      this.panned = dragging;
      // A pan that ends off the pane sends no click: the flag must not swallow the next real one.
      if (dragging) setTimeout(() => (this.panned = false));
    };
    this.pane.addEventListener('pointermove', move);
    this.pane.addEventListener('pointerup', end);
    this.pane.addEventListener('pointercancel', end);
  }
}

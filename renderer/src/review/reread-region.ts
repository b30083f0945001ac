import type { Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import { openDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { errorText, toast } from '../ui/toast.js';
import { effectiveText, effectiveType } from './block-store.js';
import type { PageSize } from './page-geometry.js';
import type { PageView } from './page-view.js';
import { cropRegion, drawRegion } from './region-crop.js';
import { editChange, type ReviewCommands } from './review-commands.js';
import { wordDiff } from './word-diff.js';

type BBox = NonNullable<Block['bbox']>;

/** A region smaller than this (points, either side) is a click, not a region: nothing is read. */
const MIN_SIDE = 3;

/** The parts of POST /jobs/{id}/pages/{page}/ocr's answer the desk reads (server/schemas/pages.ts ReocrResult). */
interface ReocrAnswer {
  read: Array<{ text: string; block_id: string | null }>;
  suggestions: Array<{ block_id: string; suggested_text: string | null }>;
  confidence: number;
}

/**
 * The text a re-read offers `block`: the server's suggestion for it when the region covers most of the
 * block, else everything read in the region (a region over one line of a long block offers that line).
 */
export function offeredText(answer: ReocrAnswer, blockId: string): string | null {
  const own = answer.suggestions.find((s) => s.block_id === blockId)?.suggested_text;
  if (own?.trim()) return own;
  const all = answer.read.map((r) => r.text.trim()).filter(Boolean);
  return all.length ? all.join('\n') : null;
}

/** Lets the reviewer drag a rectangle over the sheet; resolves with it in points, or null (Escape, a click). */
function dragRegion(sheet: HTMLElement, size: PageSize, signal: AbortSignal): Promise<BBox | null> {
  return new Promise((resolve) => {
    const layer = h('div', {
      class: 'region-draw',
      'aria-label': 'Drag over the page to choose the region to read again',
    });
    const rect = h('div', { class: 'region-rect', hidden: true });
    layer.append(rect);
    sheet.append(layer);
    sheet.classList.add('drawing');
    const done = (box: BBox | null) => {
      layer.remove();
      sheet.classList.remove('drawing');
      signal.removeEventListener('abort', cancel);
      resolve(box);
    };
    const cancel = () => done(null);
    signal.addEventListener('abort', cancel);
    layer.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      e.preventDefault();
      e.stopPropagation();
      layer.setPointerCapture(e.pointerId);
      const r = sheet.getBoundingClientRect();
      const at = (ev: PointerEvent) => ({
        x: Math.min(r.width, Math.max(0, ev.clientX - r.left)),
        y: Math.min(r.height, Math.max(0, ev.clientY - r.top)),
      });
      const start = at(e);
      let end = start;
      const place = () => {
        rect.hidden = false;
        rect.style.left = `${(Math.min(start.x, end.x) / r.width) * 100}%`;
        rect.style.top = `${(Math.min(start.y, end.y) / r.height) * 100}%`;
        rect.style.width = `${(Math.abs(end.x - start.x) / r.width) * 100}%`;
        rect.style.height = `${(Math.abs(end.y - start.y) / r.height) * 100}%`;
      };
      layer.onpointermove = (m) => {
        end = at(m);
        place();
      };
      layer.onpointerup = (u) => {
        end = at(u);
        const box = {
          x0: (Math.min(start.x, end.x) / r.width) * size.width,
          y0: (Math.min(start.y, end.y) / r.height) * size.height,
          x1: (Math.max(start.x, end.x) / r.width) * size.width,
          y1: (Math.max(start.y, end.y) / r.height) * size.height,
        };
        done(box.x1 - box.x0 < MIN_SIDE || box.y1 - box.y0 < MIN_SIDE ? null : box);
      };
    });
  });
}

/** The old text beside the new (editable) one, over the region as on the page; resolves with the text to use, or null. */
async function compareDialog(
  old: string,
  offered: string,
  confidence: number,
  crop: HTMLCanvasElement | null,
): Promise<string | null> {
  const removed = wordDiff(offered, old).map((p) =>
    p.kind === 'same' ? p.text : p.kind === 'added' ? h('del', { title: 'Not in the new reading' }, p.text) : null,
  );
  const next = h('textarea', { class: 'reread-new', 'aria-label': 'New reading', rows: 8 });
  next.value = offered;
  const body = h(
    'div',
    { class: 'reread-compare' },
    crop,
    h('section', {}, h('h3', {}, 'Now'), h('pre', { class: 'old', 'aria-label': 'Current text' }, ...removed)),
    h('section', {}, h('h3', {}, `Read again (confidence ${Math.round(confidence)}%)`), next),
  );
  const choice = await openDialog<'use' | 'keep'>({
    title: 'Re-read region',
    className: 'reread-dialog',
    body: [
      body,
      h(
        'p',
        { class: 'muted' },
        "Use the new reading as this block's text (an edit you can undo with U), or keep the text as it is.",
      ),
    ],
    buttons: [
      { label: 'Keep current', value: 'keep' },
      { label: 'Use new text', value: 'use', kind: 'primary' },
    ],
    cancel: 'keep',
    focus: 'use',
  });
  return choice === 'use' ? next.value : null;
}

export interface RereadOptions {
  api: Api;
  jobId: string;
  pageView: PageView;
  commands: ReviewCommands;
  /** The selected block: the one the new reading is offered to. */
  block: () => Block | undefined;
  /** Why changes are refused now (a closed review), once the job is known. */
  refusal: () => Promise<string | null>;
  /** Runs the action in the desk's queue, after the actions asked for before it. */
  enqueue: (action: () => Promise<void>) => void;
  /** A block changed: redraw the list and the page. */
  changed: () => void;
}

/**
 * "Re-read region" on the page bar: the reviewer drags a rectangle over the page (or takes the selected
 * block's box), the server reads that region again with OCR without writing anything (`apply: false`),
 * and the new reading is offered beside the block's text. Using it is an ordinary edit of the selected
 * block, undone with U like any other; keeping the text changes nothing.
 */
export class RereadRegion {
  readonly element: HTMLElement;
  private readonly start: HTMLButtonElement;
  private readonly useBox: HTMLButtonElement;
  private readonly cancel: HTMLButtonElement;
  private drawing: AbortController | null = null;
  private takeBox: () => void = () => undefined;

  constructor(private readonly opts: RereadOptions) {
    this.start = h(
      'button',
      {
        type: 'button',
        class: 'reread-start',
        title: 'Read a region of the page again with OCR and offer the text to the selected block',
        onclick: () => void this.begin(),
      },
      'Re-read region',
    );
    this.useBox = h(
      'button',
      {
        type: 'button',
        class: 'reread-box',
        hidden: true,
        title: "Read the selected block's box again",
        onclick: () => this.takeBox(),
      },
      "Block's box",
    );
    this.cancel = h(
      'button',
      { type: 'button', class: 'reread-cancel', hidden: true, onclick: () => this.drawing?.abort() },
      'Cancel',
    );
    this.element = h('span', { class: 'reread' }, this.start, this.useBox, this.cancel);
  }

  /** Waits for a region (dragged, or the block's box), then reads it and offers the text. */
  async begin(): Promise<void> {
    if (this.drawing) return this.drawing.abort();
    const refused = await this.opts.refusal();
    if (refused) return void toast(refused);
    const { sheet, size, page } = this.opts.pageView.drawn();
    const block = this.opts.block();
    if (!size || !block || block.page !== page) return void toast('Select a block on a page with a layout first.');
    const drawing = new AbortController();
    this.drawing = drawing;
    this.setDrawing(true);
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') drawing.abort();
      else if (e.key === 'Enter') this.takeBox();
      else return;
      e.preventDefault();
      e.stopPropagation();
    };
    // Capture: while a region is being chosen, Escape and Enter are this tool's, not the list's.
    document.addEventListener('keydown', onKey, true);
    let taken: BBox | null = null;
    this.takeBox = () => {
      taken = block.bbox ?? null;
      drawing.abort();
    };
    void dragRegion(sheet, size, drawing.signal).then((dragged) => {
      document.removeEventListener('keydown', onKey, true);
      this.drawing = null;
      this.setDrawing(false);
      const region = dragged ?? taken;
      if (region) this.opts.enqueue(() => this.read(block, region));
    });
  }

  private setDrawing(on: boolean): void {
    this.opts.pageView.zoom.panning = !on;
    this.start.classList.toggle('active', on);
    this.start.setAttribute('aria-pressed', String(on));
    this.start.textContent = on ? 'Drag over the page…' : 'Re-read region';
    this.useBox.hidden = !on;
    this.cancel.hidden = !on;
  }

  private async read(chosen: Block, region: BBox): Promise<void> {
    this.start.disabled = true;
    this.start.textContent = 'Reading…';
    let answer: ReocrAnswer;
    try {
      answer = await this.opts.api.send<ReocrAnswer>(
        'POST',
        `/jobs/${encodeURIComponent(this.opts.jobId)}/pages/${chosen.page}/ocr`,
        { bbox: region, apply: false },
      );
    } catch (err) {
      return void toast(`Could not read the region again: ${errorText(err)}`, 'error');
    } finally {
      this.start.disabled = false;
      this.start.textContent = 'Re-read region';
    }
    const offered = offeredText(answer, chosen.block_id);
    if (offered === null) return void toast('Nothing could be read in that region.');
    // The block as it is now: another action may have changed it while the region was read.
    const now = this.opts.block()?.block_id === chosen.block_id ? (this.opts.block() ?? chosen) : chosen;
    if (offered === effectiveText(now)) return void toast('The new reading is the same as the text now.');
    const text = await compareDialog(effectiveText(now), offered, answer.confidence, this.regionCanvas(region));
    if (text === null) return;
    if (!text.trim())
      return void toast('The new text is empty: nothing was changed. To leave the block out, reject it (R).');
    const change = editChange(now, { text, type: effectiveType(now), note: now.reviewer_note });
    if (!change) return;
    await this.opts.commands.change(now, change, 're-read region');
    this.opts.changed();
  }

  /** The region as on the page, for the dialog. */
  private regionCanvas(region: BBox): HTMLCanvasElement | null {
    const { size, image } = this.opts.pageView.drawn();
    if (!size || !image) return null;
    const canvas = h('canvas', { class: 'reread-crop', role: 'img', 'aria-label': 'The region read again' });
    return drawRegion(canvas, image, cropRegion(region, size, 2), size, 720, 160) ? canvas : null;
  }
}

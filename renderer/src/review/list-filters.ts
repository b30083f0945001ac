import { BLOCK_TYPES } from '../../../server/core/extract/types.js';
import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label } from '../ui/format.js';
import { effectiveText, effectiveType } from './block-store.js';
import { isFlagged } from './queue-order.js';

/** Confidence choices: OCR confidence as the server sends it (0..100, or 0..1 from other servers). */
const CONFIDENCE = [
  ['', 'Any confidence'],
  ['flagged', 'Flagged (low OCR confidence)'],
  ['lt80', 'OCR below 80%'],
  ['lt50', 'OCR below 50%'],
  ['ocr', 'Read by OCR'],
  ['text', 'Not OCR'],
] as const;

const ratio = (c: number) => (c > 1 ? c / 100 : c);

function confidenceOk(b: Block, want: string): boolean {
  switch (want) {
    case 'flagged':
      return isFlagged(b);
    case 'lt80':
    case 'lt50':
      return typeof b.confidence === 'number' && ratio(b.confidence) < (want === 'lt80' ? 0.8 : 0.5);
    case 'ocr':
      return b.source === 'ocr';
    case 'text':
      return b.source !== 'ocr';
    default:
      return true;
  }
}

/**
 * Filters on the block list by type, status, confidence and text, all combined. The list (and so j/k and
 * the jumps) shows only what matches; the bar says how many of how many.
 */
export class ListFilters {
  readonly element: HTMLElement;
  private readonly type: HTMLSelectElement;
  private readonly status: HTMLSelectElement;
  private readonly confidence: HTMLSelectElement;
  private readonly text: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly clearButton: HTMLButtonElement;

  /** `focusList` gives the keys back to the block list (Escape or Enter in the text filter). */
  constructor(onChange: () => void, focusList: () => void) {
    const select = (name: string, options: readonly (readonly [string, string])[]) =>
      h(
        'select',
        { class: `filter-${name}`, 'aria-label': `Filter by ${name}`, onchange: onChange },
        ...options.map(([v, t]) => h('option', { value: v }, t)),
      );
    this.type = select('type', [['', 'Any type'], ...BLOCK_TYPES.map((t) => [t, label(t)] as const)]);
    this.status = select('status', [
      ['', 'Any status'],
      ['pending', 'Pending'],
      ['approved', 'Approved'],
      ['edited', 'Edited'],
      ['rejected', 'Rejected'],
    ]);
    this.confidence = select('confidence', CONFIDENCE);
    this.text = h('input', {
      type: 'search',
      class: 'filter-text',
      placeholder: 'Text filter',
      'aria-label': 'Filter by text',
      oninput: onChange,
    });
    this.text.addEventListener('keydown', (e) => {
      // Typing here must not reach the list's single-key shortcuts.
      e.stopPropagation();
      if (e.key === 'Escape' || e.key === 'Enter') focusList();
    });
    this.count = h('span', { class: 'filter-count muted', 'aria-live': 'polite' });
    this.clearButton = h(
      'button',
      {
        type: 'button',
        class: 'filter-clear',
        title: 'Show every block',
        onclick: () => {
          for (const s of [this.type, this.status, this.confidence]) s.value = '';
          this.text.value = '';
          onChange();
        },
      },
      'Clear',
    );
    this.element = h(
      'div',
      { class: 'list-filters', role: 'group', 'aria-label': 'Filters' },
      this.type,
      this.status,
      this.confidence,
      this.text,
      this.clearButton,
      this.count,
    );
    this.clearButton.hidden = true;
  }

  get active(): boolean {
    return !!(this.type.value || this.status.value || this.confidence.value || this.text.value.trim());
  }

  matches(b: Block): boolean {
    if (this.type.value && effectiveType(b) !== this.type.value) return false;
    if (this.status.value && b.status !== this.status.value) return false;
    if (!confidenceOk(b, this.confidence.value)) return false;
    const q = this.text.value.trim().toLowerCase();
    return !q || effectiveText(b).toLowerCase().includes(q) || (b.reviewer_note ?? '').toLowerCase().includes(q);
  }

  /** The positions of `order` that pass the filters (blocks not loaded yet pass only when nothing filters). */
  apply(order: number[], at: (i: number) => Block | undefined): number[] {
    const out = this.active
      ? order.filter((i) => {
          const b = at(i);
          return !!b && this.matches(b);
        })
      : order;
    this.clearButton.hidden = !this.active;
    this.count.textContent = this.active ? `${out.length} of ${order.length} shown` : '';
    this.element.classList.toggle('active', this.active);
    return out;
  }
}

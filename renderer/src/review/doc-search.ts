import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { effectiveText } from './block-store.js';

/**
 * Search within the document: a query over the blocks' text (as corrected), the matches highlighted in the
 * list, Enter / Shift+Enter (or G / Shift+G, F3 from the list) for the next and previous match, round the
 * ends. It finds in the list as shown, so a filter narrows it too.
 */
export class DocSearch {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly count: HTMLElement;

  constructor(
    private readonly host: {
      order(): readonly number[];
      pos(): number;
      at(i: number): Block | undefined;
      select(pos: number): void;
      /** The query changed: rows must be drawn again with the new highlights. */
      changed(): void;
      focusList(): void;
    },
  ) {
    this.input = h('input', {
      type: 'search',
      class: 'doc-search',
      placeholder: 'Find ( / )',
      'aria-label': 'Find in document',
    });
    this.count = h('span', { class: 'search-count muted', 'aria-live': 'polite' });
    this.input.addEventListener('input', () => {
      host.changed();
      this.showCount();
    });
    this.input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') {
        e.preventDefault();
        this.next(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        host.focusList();
      }
    });
    const button = (text: string, title: string, dir: 1 | -1) =>
      h(
        'button',
        {
          type: 'button',
          class: `search-${dir > 0 ? 'next' : 'prev'}`,
          title,
          tabindex: -1,
          onclick: () => this.next(dir),
        },
        text,
      );
    this.element = h(
      'div',
      { class: 'doc-search-bar', role: 'search' },
      this.input,
      button('↑', 'Previous match (Shift+G)', -1),
      button('↓', 'Next match (G, F3)', 1),
      this.count,
    );
  }

  get query(): string {
    return this.input.value.trim().toLowerCase();
  }

  private hit(b: Block | undefined): boolean {
    const q = this.query;
    return !!q && !!b && effectiveText(b).toLowerCase().includes(q);
  }

  /** Positions of the list whose block matches. */
  private matches(): number[] {
    const order = this.host.order();
    const out: number[] = [];
    order.forEach((i, p) => {
      if (this.hit(this.host.at(i))) out.push(p);
    });
    return out;
  }

  /** Moves to the next (or previous) match after the selected block, going round the ends. */
  next(dir: 1 | -1): void {
    if (!this.query) {
      this.input.focus();
      return;
    }
    const hits = this.matches();
    if (!hits.length) {
      this.count.textContent = 'no match';
      return;
    }
    const pos = this.host.pos();
    const target =
      dir > 0
        ? (hits.find((p) => p > pos) ?? hits[0]!)
        : ([...hits].reverse().find((p) => p < pos) ?? hits[hits.length - 1]!);
    this.host.select(target);
    this.showCount(hits, target);
  }

  /** "3 of 17", or "no match". */
  showCount(hits = this.matches(), at = this.host.pos()): void {
    if (!this.query) return void (this.count.textContent = '');
    const k = hits.indexOf(at);
    this.count.textContent = hits.length
      ? `${k >= 0 ? `${k + 1} of ` : ''}${hits.length} match${hits.length === 1 ? '' : 'es'}`
      : 'no match';
  }

  /** A key for the list's row cache: rows are drawn again when it changes. */
  get key(): string {
    return this.query;
  }

  /** Marks the query in a row's text (a table preview is left as it is, the row itself is marked). */
  decorate(row: HTMLElement, b: Block): void {
    if (!this.hit(b)) return;
    row.classList.add('search-hit');
    const text = row.querySelector('.row-text:not(.row-table)');
    if (!text) return;
    const full = effectiveText(b);
    const lower = full.toLowerCase();
    const q = this.query;
    const parts: (string | HTMLElement)[] = [];
    let from = 0;
    for (let at = lower.indexOf(q); at >= 0; at = lower.indexOf(q, at + q.length)) {
      parts.push(full.slice(from, at), h('mark', {}, full.slice(at, at + q.length)));
      from = at + q.length;
    }
    parts.push(full.slice(from));
    text.replaceChildren(...parts);
  }
}

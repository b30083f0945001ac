import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import type { BlockStore } from './block-store.js';

const STATUSES = ['approved', 'edited', 'rejected', 'pending'] as const;

/**
 * One reviewing session of a job: what each block was when first seen, and when reviewing began. Kept in
 * the job's desk state (DeskMemory), so a look at the audit and back does not restart the session's count.
 */
export interface ReviewSession {
  initial: Map<string, Block['status']>;
  firstReview: number | null;
}

/** Tallies by status, and this session's reviews: blocks that left pending (or changed decision) since. */
export function reviewTally(blocks: Iterable<Block | undefined>, initial: ReadonlyMap<string, Block['status']>) {
  const by: Record<Block['status'], number> = { pending: 0, approved: 0, edited: 0, rejected: 0 };
  let total = 0;
  let session = 0;
  for (const b of blocks) {
    if (!b) continue;
    total += 1;
    by[b.status] += 1;
    const was = initial.get(b.block_id);
    if (b.status !== 'pending' && was !== undefined && was !== b.status) session += 1;
  }
  return { by, total, reviewed: total - by.pending, session };
}

/**
 * The review progress bar: reviewed / total with a segment per status, and this session's count and rate.
 * Follows the store, so every save, bulk action and undo moves it.
 */
export class ReviewProgress {
  readonly element: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly text: HTMLElement;
  private scheduled = false;

  constructor(
    private readonly store: BlockStore,
    private readonly session: ReviewSession,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.bar = h('div', { class: 'progress-bar', role: 'img' });
    this.text = h('div', { class: 'progress-text muted', 'aria-live': 'polite' });
    this.element = h('div', { class: 'review-progress' }, this.bar, this.text);
    store.subscribe(() => this.schedule());
  }

  /** Many store changes in one task (a page of blocks, a bulk answer) are drawn once. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.update();
    });
  }

  update(): void {
    const all: (Block | undefined)[] = [];
    for (let i = 0; i < this.store.total; i++) {
      const b = this.store.at(i);
      all.push(b);
      if (b && !this.session.initial.has(b.block_id)) this.session.initial.set(b.block_id, b.status);
    }
    const t = reviewTally(all, this.session.initial);
    if (t.session > 0 && this.session.firstReview === null) this.session.firstReview = this.now();
    const pct = (n: number) => (t.total ? (100 * n) / t.total : 0);
    this.bar.replaceChildren(
      ...STATUSES.map((s) => {
        const seg = h('span', { class: `seg status-${s}`, title: `${t.by[s]} ${s}`, 'data-count': t.by[s] });
        // Through the CSSOM: the page's CSP refuses style attributes.
        seg.style.width = `${pct(t.by[s]).toFixed(3)}%`;
        return seg;
      }),
    );
    this.bar.setAttribute('aria-label', `${t.reviewed} of ${t.total} blocks reviewed`);
    const minutes =
      this.session.firstReview === null ? 0 : Math.max(1, (this.now() - this.session.firstReview) / 60_000);
    const rate = minutes ? ` · ${(t.session / minutes).toFixed(1)}/min` : '';
    this.text.textContent =
      `${t.reviewed} / ${t.total} reviewed (${Math.floor(pct(t.reviewed))}%) · ` +
      `${t.by.approved} approved · ${t.by.edited} edited · ${t.by.rejected} rejected · ` +
      `this session: ${t.session} reviewed${rate}`;
  }
}

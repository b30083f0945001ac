import type { Job } from '../api/types.js';
import { h } from '../ui/dom.js';
import type { BlockStore } from './block-store.js';
import type { ReviewCommand } from './review-keys.js';

/** The bar above the desk: page navigation, queue toggle, counts, bulk actions, undo and help. */
export class ReviewToolbar {
  readonly element: HTMLElement;
  private readonly pageInput: HTMLInputElement;
  private readonly pageTotal: HTMLElement;
  private readonly counts: HTMLElement;
  private readonly loading: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly undoButton: HTMLButtonElement;
  private readonly queueButton: HTMLButtonElement;
  private readonly title: HTMLElement;
  private readonly readOnly: HTMLElement;
  private readonly changeButtons: HTMLButtonElement[];
  private page = 1;
  private locked = false;
  private undoLabel: string | undefined;

  constructor(actions: {
    run(c: ReviewCommand): void;
    goToPage(n: number): void;
    approveAll(): void;
    focusList(): void;
  }) {
    const button = (text: string, c: ReviewCommand, title: string, cls = '') =>
      h('button', { type: 'button', class: cls, title, onclick: () => actions.run(c) }, text);
    this.pageInput = h('input', { type: 'number', min: 1, class: 'page-input', 'aria-label': 'Page number' });
    this.pageInput.addEventListener('change', () => actions.goToPage(Number(this.pageInput.value)));
    // Typing a number must not reach the list's single-key shortcuts; Enter goes to the page and gives
    // the keys back to the list (j and k then move from the page's first block), Escape gives them back.
    this.pageInput.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') {
        e.preventDefault();
        actions.goToPage(Number(this.pageInput.value));
        actions.focusList();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        this.pageInput.value = String(this.page);
        actions.focusList();
      }
    });
    this.pageTotal = h('span', { class: 'muted' });
    this.counts = h('span', { class: 'counts', 'aria-live': 'polite' });
    this.loading = h('span', { class: 'muted loading-note' });
    this.progress = h('span', { class: 'bulk-progress', role: 'status', hidden: true });
    this.undoButton = button('Undo', 'undo', 'Undo your last action (U)');
    this.queueButton = button('Flagged first', 'toggleQueue', 'Show flagged and pending blocks first (Q)');
    this.title = h('strong', { class: 'job-title' });
    this.readOnly = h('span', { class: 'badge warn read-only', hidden: true }, 'read only');
    const approvePage = button(
      'Approve page',
      'approvePage',
      'Approve every pending block of this page (Shift+A)',
      'approve-page',
    );
    const approveAll = h(
      'button',
      {
        type: 'button',
        class: 'approve-all',
        title: 'Approve every pending block of the job',
        onclick: actions.approveAll,
      },
      'Approve all pending',
    );
    this.changeButtons = [approvePage, approveAll];
    this.element = h(
      'div',
      { class: 'toolbar review-toolbar' },
      this.title,
      this.readOnly,
      h(
        'span',
        { class: 'page-nav' },
        button('◀', 'prevPage', 'Previous page ([)'),
        'Page ',
        this.pageInput,
        this.pageTotal,
        button('▶', 'nextPage', 'Next page (])'),
      ),
      this.queueButton,
      approvePage,
      approveAll,
      this.undoButton,
      button('?', 'help', 'Keyboard shortcuts (?)'),
      this.counts,
      this.progress,
      this.loading,
    );
  }

  /** The job's title; a job not ready for review is read-only: the buttons that change blocks are off. */
  showJob(job: Job, readOnly: boolean): void {
    this.title.textContent = job.title ?? job.source_file;
    this.locked = readOnly;
    this.readOnly.hidden = !readOnly;
    this.readOnly.title = `The job is ${job.status}: review is closed, blocks can no longer be changed.`;
    for (const b of this.changeButtons) b.disabled = readOnly;
    this.showUndo();
  }

  showPage(page: number, total: number): void {
    this.page = page;
    if (document.activeElement !== this.pageInput) this.pageInput.value = String(page);
    this.pageInput.max = String(total || page);
    this.pageTotal.textContent = total ? ` / ${total} ` : ' ';
  }

  showCounts(store: BlockStore, undoLabel: string | undefined, queueMode: boolean): void {
    const tally = { pending: 0, approved: 0, edited: 0, rejected: 0 };
    for (let i = 0; i < store.total; i++) {
      const b = store.at(i);
      if (b) tally[b.status] += 1;
    }
    this.counts.textContent = `${tally.pending} pending · ${tally.approved} approved · ${tally.edited} edited · ${tally.rejected} rejected`;
    this.undoLabel = undoLabel;
    this.showUndo();
    this.queueButton.textContent = queueMode ? 'Reading order' : 'Flagged first';
    this.queueButton.setAttribute('aria-pressed', String(queueMode));
  }

  private showUndo(): void {
    this.undoButton.disabled = this.locked || !this.undoLabel;
    this.undoButton.title = this.locked
      ? 'Read only'
      : this.undoLabel
        ? `Undo ${this.undoLabel} (U)`
        : 'Nothing to undo';
  }

  /** Bulk work under way: a bar and "label done / total", hidden once done reaches total. */
  showProgress(label: string, done: number, total: number): void {
    this.progress.hidden = done >= total;
    this.progress.replaceChildren(h('progress', { max: total, value: done }), ` ${label}: ${done} / ${total}`);
  }

  showLoading(loaded: number, total: number): void {
    this.loading.textContent = loaded < total ? `loading ${loaded} / ${total} blocks…` : `${total} blocks`;
  }
}

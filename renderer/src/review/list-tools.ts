import type { Api } from '../api/client.js';
import { loadAll } from '../api/load-all.js';
import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { toast } from '../ui/toast.js';
import type { BlockStore } from './block-store.js';
import type { DeskState } from './desk-memory.js';
import { BlockStructure } from './block-structure.js';
import { DocSearch } from './doc-search.js';
import { ListFilters } from './list-filters.js';
import { jump, jumpMessage, type JumpKind } from './next-jump.js';
import type { ReviewCommand } from './review-keys.js';
import { ReviewProgress } from './review-progress.js';
import type { UndoStack } from './undo-stack.js';

/** Height of the note line a row gains when its block has a note (the list's rows have fixed heights). */
const NOTE_LINE = 20;

/**
 * The list side of the desk: progress and session stats, filters, search within the document, next
 * pending / flagged jumps, notes shown in the rows, and split, merge and reading order (buttons, keys and
 * dragging rows). The screen keeps the list and the selection; this reads and moves them through `host`.
 */
export class ListTools {
  readonly element: HTMLElement;
  readonly filters: ListFilters;
  readonly search: DocSearch;
  readonly structure: BlockStructure;
  private readonly progress: ReviewProgress;

  constructor(
    private readonly host: {
      api: Api;
      jobId: string;
      store: BlockStore;
      undo: UndoStack;
      desk: DeskState;
      signal: AbortSignal;
      order(): readonly number[];
      pos(): number;
      select(pos: number): void;
      selectBlock(blockId: string): void;
      current(): Block | undefined;
      /** The filters changed: the list order must be computed again. */
      rebuild(): void;
      redraw(): void;
      focusList(): void;
      refusal(): Promise<string | null>;
      enqueue(action: () => Promise<void>): void;
      run(c: ReviewCommand): void;
      /** A reload of the blocks is under way: what the screen waits on before acting on every block. */
      loading(done: Promise<void>): void;
    },
  ) {
    this.progress = new ReviewProgress(host.store, host.desk.session);
    this.filters = new ListFilters(() => {
      host.rebuild();
      host.select(Math.min(host.pos(), host.order().length - 1));
      host.redraw();
    }, host.focusList);
    this.search = new DocSearch({
      order: host.order,
      pos: host.pos,
      at: (i) => host.store.at(i),
      select: (p) => host.select(p),
      changed: () => host.redraw(),
      focusList: host.focusList,
    });
    this.structure = new BlockStructure({
      api: host.api,
      jobId: host.jobId,
      store: host.store,
      undo: host.undo,
      reload: (id) => this.reload(id),
      refusal: host.refusal,
      enqueue: host.enqueue,
    });
    // Out of the Tab order: each has its key (in the title and the ? help), and Tab must reach the list
    // from the toolbar in a few presses; the search and the filters, which need typing, stay in it.
    const button = (text: string, c: ReviewCommand, title: string, cls: string) =>
      h('button', { type: 'button', class: cls, title, tabindex: -1, onclick: () => host.run(c) }, text);
    this.element = h(
      'div',
      { class: 'list-tools' },
      this.progress.element,
      h(
        'div',
        { class: 'list-tools-row' },
        button('Next pending', 'nextPending', 'Next pending block (P; Shift+P goes back)', 'jump-pending'),
        button(
          'Next flagged',
          'nextFlagged',
          'Next flagged block still pending (F; Shift+F goes back)',
          'jump-flagged',
        ),
        this.search.element,
      ),
      this.filters.element,
      h(
        'div',
        { class: 'list-tools-row structure-tools' },
        button('Split…', 'split', 'Split the block in two (S)', 'split-block'),
        button('Merge with next', 'mergeNext', 'Merge the block with the next one (M)', 'merge-next'),
        button('Move up', 'moveUp', 'Move the block up in reading order (Shift+K); or drag rows', 'move-up'),
        button('Move down', 'moveDown', 'Move the block down in reading order (Shift+J); or drag rows', 'move-down'),
      ),
    );
  }

  /** The list positions that pass the filters. */
  filter(order: number[]): number[] {
    return this.filters.apply(order, (i) => this.host.store.at(i));
  }

  /** Part of each row's cache key: rows are drawn again when the search changes. */
  get key(): string {
    return this.search.key;
  }

  extraHeight(b: Block | undefined): number {
    return b?.reviewer_note ? NOTE_LINE : 0;
  }

  /** Adds to a drawn row what the list side shows: its note in full view, search marks, dragging. */
  decorate(row: HTMLElement, b: Block, readOnly: boolean): HTMLElement {
    if (b.reviewer_note) {
      const text = row.querySelector('.row-text');
      const note = h('div', { class: 'row-note', title: b.reviewer_note }, `✉ ${b.reviewer_note}`);
      if (text) text.after(note);
      else row.append(note);
    }
    this.search.decorate(row, b);
    this.structure.draggable(row, readOnly);
    return row;
  }

  /** Reads every block again (after a split, merge or move) and selects `selectId` when given. */
  async reload(selectId: string | null): Promise<void> {
    const keep = selectId ?? this.host.current()?.block_id ?? null;
    const { store } = this.host;
    const done = (async () => {
      store.clear();
      await loadAll<Block>(
        this.host.api,
        `/jobs/${encodeURIComponent(this.host.jobId)}/blocks`,
        (skip, items, total) => store.fill(skip, items, total),
        {
          signal: this.host.signal,
        },
      );
    })();
    this.host.loading(done);
    await done;
    if (keep) this.host.selectBlock(keep);
    this.host.redraw();
  }

  private jumpTo(kind: JumpKind, dir: 1 | -1): void {
    const order = this.host.order();
    const j = jump(order, this.host.pos(), dir, kind, (i) => this.host.store.at(i));
    const say = jumpMessage(kind, j, dir, this.filters.active);
    if (say) toast(say);
    if (j) this.host.select(j.pos);
  }

  /** The list side's commands (the screen hands on those it does not run itself; others do nothing here). */
  async run(c: ReviewCommand): Promise<void> {
    const b = this.host.current();
    switch (c) {
      case 'nextPending':
      case 'prevPending':
        this.jumpTo('pending', c === 'nextPending' ? 1 : -1);
        return;
      case 'nextFlagged':
      case 'prevFlagged':
        this.jumpTo('flagged', c === 'nextFlagged' ? 1 : -1);
        return;
      case 'find':
        this.search.input.focus();
        this.search.input.select();
        return;
      case 'nextMatch':
      case 'prevMatch':
        this.search.next(c === 'nextMatch' ? 1 : -1);
        return;
      case 'split':
        if (b) await this.structure.split(b);
        return;
      case 'mergeNext':
        if (b) await this.structure.mergeNext(b);
        return;
      case 'moveUp':
      case 'moveDown':
        if (b) await this.structure.step(b, c === 'moveDown' ? 1 : -1);
        return;
    }
  }
}

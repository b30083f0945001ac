import type { Static } from 'typebox';
import type { StructureResult as StructureResultSchema } from '../../../server/schemas/review.js';
import type { Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import { openDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { errorText, toast } from '../ui/toast.js';
import { effectiveText, type BlockStore } from './block-store.js';
import type { UndoStack } from './undo-stack.js';

type StructureAnswer = Omit<Static<typeof StructureResultSchema>, 'blocks'> & { blocks: Block[] };

/**
 * Split, merge and reading order, on the server's structure routes. Each is one undoable action (the
 * server takes the whole operation back from any of its revisions). They change which blocks exist and
 * every position after them, so the list is read again afterwards (`reload`, which selects the block named).
 */
export class BlockStructure {
  private readonly base: string;
  private dragged: string | null = null;

  constructor(
    private readonly o: {
      api: Api;
      jobId: string;
      store: BlockStore;
      undo: UndoStack;
      reload(selectId: string | null): Promise<void>;
      /** Why changes are refused now (read-only job), or null. */
      refusal(): Promise<string | null>;
      enqueue(action: () => Promise<void>): void;
    },
  ) {
    this.base = `/jobs/${encodeURIComponent(o.jobId)}/blocks`;
  }

  private async send(
    path: string,
    body: unknown,
    label: string,
    select: (a: StructureAnswer) => string | null,
  ): Promise<StructureAnswer | null> {
    try {
      const answer = await this.o.api.send<StructureAnswer>('POST', `${this.base}${path}`, body);
      // The removed blocks are gone: only the revisions of blocks that still exist can be named by undo,
      // and any one of them takes the whole operation back.
      const gone = new Set(answer.removed);
      this.o.undo.push({
        label,
        structural: true,
        blocks: answer.revisions
          .filter((r) => !gone.has(r.block_id))
          .map((r) => ({ blockId: r.block_id, revisionId: r.revision_id })),
      });
      await this.o.reload(select(answer));
      return answer;
    } catch (err) {
      toast(`Could not ${label}: ${errorText(err)}`, 'error');
      await this.o.reload(null);
      return null;
    }
  }

  /** Asks where to cut (the caret in the block's text) and splits there. */
  async split(b: Block): Promise<void> {
    const text = effectiveText(b);
    const area = h('textarea', {
      class: 'split-text',
      rows: 8,
      readonly: true,
      'aria-label': 'Block text: put the cursor where the second block starts',
    });
    area.value = text;
    // A first guess: the sentence boundary nearest the middle.
    const mid = text.length / 2;
    const cuts = [...text.matchAll(/[.!?:;]\s+/g)].map((m) => (m.index ?? 0) + m[0].length);
    const guess = cuts.sort((x, y) => Math.abs(x - mid) - Math.abs(y - mid))[0] ?? Math.floor(mid);
    const hint = h('p', { class: 'muted split-hint' });
    const showHint = () => {
      const at = area.selectionStart;
      hint.textContent = `Cut at character ${at}: “…${text.slice(Math.max(0, at - 20), at)}” | “${text.slice(at, at + 20)}…”`;
    };
    for (const ev of ['click', 'keyup', 'select', 'focus']) area.addEventListener(ev, showHint);
    queueMicrotask(() => {
      area.focus();
      area.setSelectionRange(guess, guess);
      showHint();
    });
    const go = await openDialog({
      title: `Split block ${b.block_id}`,
      body: [h('p', {}, 'Put the cursor where the second block should start, then split. U undoes it.'), area, hint],
      buttons: [
        { label: 'Cancel', value: false },
        { label: 'Split here', value: true, kind: 'primary', key: 's' },
      ],
      cancel: false,
      className: 'split-dialog',
    });
    if (!go) return;
    const at = area.selectionStart;
    const answer = await this.send(
      `/${encodeURIComponent(b.block_id)}/split`,
      { at, version: b.version },
      'split block',
      (a) => a.blocks[1]?.block_id ?? null,
    );
    if (answer) toast(`Split ${b.block_id} in two (U undoes it).`);
  }

  /** Joins the block with the next one in reading order. */
  async mergeNext(b: Block): Promise<void> {
    const i = this.o.store.indexOf(b.block_id);
    const next = i === undefined ? undefined : this.o.store.at(i + 1);
    if (!next) return void toast('This is the last block: there is nothing after it to merge.');
    const answer = await this.send(
      '/merge',
      { items: [b, next].map((x) => ({ block_id: x.block_id, version: x.version })) },
      'merge blocks',
      () => b.block_id,
    );
    if (answer) toast(`Merged ${next.block_id} into ${b.block_id} (U undoes it).`);
  }

  /** Moves the block one place down (after the next block) or up (before the previous one) in reading order. */
  async step(b: Block, dir: 1 | -1): Promise<void> {
    const i = this.o.store.indexOf(b.block_id);
    if (i === undefined) return;
    const target = dir > 0 ? this.o.store.at(i + 1) : this.o.store.at(i - 1);
    if (!target) return void toast(dir > 0 ? 'This block is already last.' : 'This block is already first.');
    const after = dir > 0 ? target.block_id : (this.o.store.at(i - 2)?.block_id ?? null);
    await this.moveAfter(b, after);
  }

  async moveAfter(b: Block, after: string | null): Promise<void> {
    const answer = await this.send(
      `/${encodeURIComponent(b.block_id)}/move`,
      { version: b.version, after_block_id: after },
      'move block',
      () => b.block_id,
    );
    if (answer)
      toast(
        answer.revisions.length
          ? `Moved ${b.block_id} ${after ? `after ${after}` : 'to the start'} (U undoes it).`
          : `${b.block_id} is already there.`,
      );
  }

  /** Rows are dragged to fix the reading order: dropped on the top half of a row goes before it, else after. */
  draggable(row: HTMLElement, readOnly: boolean): void {
    if (!readOnly) row.draggable = true;
  }

  /** Drag and drop on the list, by delegation (the list draws its rows lazily). */
  attach(list: HTMLElement): void {
    const rowOf = (e: Event) =>
      (e.target as HTMLElement | null)?.closest<HTMLElement>('.block-row[data-block]') ?? null;
    const clearMarks = () =>
      list
        .querySelectorAll('.drop-before, .drop-after')
        .forEach((el) => el.classList.remove('drop-before', 'drop-after'));
    const before = (e: DragEvent, row: HTMLElement) =>
      e.clientY < row.getBoundingClientRect().top + row.offsetHeight / 2;
    list.addEventListener('dragstart', (e) => {
      const row = rowOf(e);
      this.dragged = row?.dataset.block ?? null;
      if (this.dragged && e.dataTransfer) {
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('text/plain', this.dragged);
      }
    });
    list.addEventListener('dragover', (e) => {
      const row = rowOf(e);
      if (!this.dragged || !row) return;
      e.preventDefault();
      clearMarks();
      row.classList.add(before(e, row) ? 'drop-before' : 'drop-after');
    });
    list.addEventListener('dragleave', (e) => rowOf(e)?.classList.remove('drop-before', 'drop-after'));
    list.addEventListener('dragend', () => {
      this.dragged = null;
      clearMarks();
    });
    list.addEventListener('drop', (e) => {
      const row = rowOf(e);
      const id = this.dragged;
      this.dragged = null;
      clearMarks();
      if (!row || !id || row.dataset.block === id) return;
      e.preventDefault();
      const targetId = row.dataset.block!;
      const putBefore = before(e, row);
      this.o.enqueue(async () => {
        const refused = await this.o.refusal();
        if (refused) return void toast(refused);
        const { store } = this.o;
        const from = store.indexOf(id);
        const to = store.indexOf(targetId);
        const b = from === undefined ? undefined : store.at(from);
        if (!b || to === undefined) return;
        const after = putBefore ? (store.at(to - 1)?.block_id ?? null) : targetId;
        if (after === id) return;
        await this.moveAfter(b, after);
      });
    });
  }
}

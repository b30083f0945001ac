import type { Block } from '../api/types.js';

/** What a block held before an action, enough to PATCH it back. */
export interface BlockBefore {
  blockId: string;
  status: Block['status'];
  edited_text: string | null;
  edited_type: Block['edited_type'];
  reviewer_note: string | null;
}

export interface UndoEntry {
  label: string;
  blocks: BlockBefore[];
}

export const beforeOf = (b: Block): BlockBefore => ({
  blockId: b.block_id,
  status: b.status,
  edited_text: b.edited_text,
  edited_type: b.edited_type,
  reviewer_note: b.reviewer_note,
});

/**
 * The reviewer's own actions, newest last. An entry can hold many blocks (bulk approve of a page is one
 * action to undo). Bounded, since hours of review would otherwise keep every block ever touched.
 */
export class UndoStack {
  private entries: UndoEntry[] = [];
  constructor(private readonly limit = 200) {}

  push(entry: UndoEntry): void {
    if (!entry.blocks.length) return;
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.shift();
  }

  pop(): UndoEntry | undefined {
    return this.entries.pop();
  }

  peek(): UndoEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  get size(): number {
    return this.entries.length;
  }
}

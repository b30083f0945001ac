/** A block an action changed, with the revision that changed it: undo returns it to that revision's `before`. */
export interface UndoTarget {
  blockId: string;
  revisionId: string;
}

export interface UndoEntry {
  label: string;
  blocks: UndoTarget[];
  /** A split, merge or move: undoing it changes which blocks exist, so the list is read again. */
  structural?: boolean;
}

/**
 * The reviewer's own actions, newest last. An entry can hold many blocks (bulk approve of a page is one
 * action to undo). The server keeps what each block was before (the revision's `before`), so undo restores
 * it exactly. Bounded, since hours of review would otherwise keep every block ever touched.
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

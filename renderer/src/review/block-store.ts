import type { Block } from '../api/types.js';

/**
 * Every block of one job, in reading order, filled page by page as the list loads. Slots not loaded yet
 * are `undefined`, so the list can show its full length from the first answer. Blocks are looked up by
 * id (PATCH answers, search citations) and by page (the page view).
 */
export class BlockStore {
  private blocks: (Block | undefined)[] = [];
  private byId = new Map<string, number>();
  private pages = new Map<number, number[]>();
  private listeners = new Set<(indices: number[] | 'all') => void>();
  loaded = 0;

  get total(): number {
    return this.blocks.length;
  }

  at(i: number): Block | undefined {
    return this.blocks[i];
  }

  indexOf(blockId: string): number | undefined {
    return this.byId.get(blockId);
  }

  /** Indices of a page's loaded blocks, in reading order. */
  onPage(page: number): number[] {
    return this.pages.get(page) ?? [];
  }

  pageNumbers(): number[] {
    return [...this.pages.keys()].sort((a, b) => a - b);
  }

  /** Puts a page of the list answer at its offset; `total` sizes the store on the first call. */
  fill(skip: number, items: Block[], total: number): void {
    if (this.blocks.length !== total) this.blocks.length = total;
    items.forEach((b, k) => {
      const i = skip + k;
      if (!this.blocks[i]) this.loaded += 1;
      this.blocks[i] = b;
      this.byId.set(b.block_id, i);
      const list = this.pages.get(b.page) ?? [];
      // Pages arrive out of order under concurrent loading: keep each page's list sorted.
      if (!list.includes(i)) {
        list.push(i);
        if (list.length > 1 && (list[list.length - 2] ?? 0) > i) list.sort((a, c) => a - c);
      }
      this.pages.set(b.page, list);
    });
    this.emit('all');
  }

  /** Empties the store before the list is read again (a split, merge or move shifts every block after it). */
  clear(): void {
    this.blocks = [];
    this.byId.clear();
    this.pages.clear();
    this.loaded = 0;
  }

  /** A newer copy of one block (PATCH answer or a conflict's current version). */
  replace(block: Block): void {
    const i = this.byId.get(block.block_id);
    if (i === undefined) return;
    this.blocks[i] = block;
    this.emit([i]);
  }

  subscribe(fn: (indices: number[] | 'all') => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(indices: number[] | 'all'): void {
    for (const fn of this.listeners) fn(indices);
  }
}

/** The text a reviewer sees and edits: the correction when there is one (the server's `text` already is; `original_text` is the extracted one). */
export const effectiveText = (b: Pick<Block, 'text' | 'edited_text'>): string => b.edited_text ?? b.text;
export const effectiveType = (b: Pick<Block, 'type' | 'edited_type'>): Block['type'] => b.edited_type ?? b.type;

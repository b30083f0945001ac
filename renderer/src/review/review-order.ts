import type { Block } from '../api/types.js';
import { queueOrder } from './queue-order.js';

/**
 * Which blocks the desk's list shows, in what order, and which one is selected. Positions are places in
 * the list; indexes are places in the job's reading order (the block store's). Slots not loaded yet
 * still count, so the scrollbar has its final length at once.
 */
export class ReviewOrder {
  private order: number[] = [];
  private posOf = new Int32Array(0);
  /** The selected position. */
  pos = 0;

  /** Queue mode: pending blocks first, least sure first; else reading order. */
  constructor(public queueMode: boolean) {}

  get length(): number {
    return this.order.length;
  }

  /** Every index the list shows, in its order. */
  indexes(): readonly number[] {
    return this.order;
  }

  /** The block index at a position. */
  at(p: number): number | undefined {
    return this.order[p];
  }

  /** The selected block's index. */
  current(): number | undefined {
    return this.order[this.pos];
  }

  /** The position of a block index; -1 when the list's filters hide it. */
  positionOf(i: number): number {
    return this.posOf[i] ?? 0;
  }

  shows(i: number): boolean {
    return (this.posOf[i] ?? -1) >= 0;
  }

  /** Orders `total` blocks anew through the list's filters, keeping the selected block selected if it is still shown. */
  rebuild(total: number, blockAt: (i: number) => Block | undefined, filter: (order: number[]) => number[]): void {
    const keep = this.current();
    const all = Array.from({ length: total }, (_, i) => i);
    this.order = filter(this.queueMode ? queueOrder(all.map(blockAt)) : all);
    this.posOf = new Int32Array(total).fill(-1);
    this.order.forEach((i, p) => (this.posOf[i] = p));
    if (keep !== undefined && this.shows(keep)) this.pos = this.positionOf(keep);
    else this.pos = Math.max(0, Math.min(this.pos, this.order.length - 1));
  }
}

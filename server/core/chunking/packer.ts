import type { BlockType } from '../extract/types.js';

/** One unit of chunk text: a whole block, a segment of one, a heading, or a repeated prefix. */
export interface Item {
  text: string;
  tokens: number;
  blockIds: string[];
  pages: number[];
  /** Index (in the prepared block list) of the block the item's text starts in; -1 for prefixes. */
  firstBlock: number;
  /** Segment index inside that block; > 0 means the item continues a block split earlier. */
  firstSeg: number;
  /** Index of the block the item's text ends in. */
  lastBlock: number;
  /** Original text between the previous segment of the same block and this one. */
  sep: string;
  role: 'heading' | 'content' | 'prefix';
  type: BlockType | null;
}

export interface Piece {
  text: string;
  items: Item[];
  /** Start offset of each item in `text`. */
  offsets: number[];
}

/**
 * Makes the start of the next piece from the previous one (overlap, repeated table header), holding at
 * most `budget` tokens so that the item that forced the split still fits beside it.
 */
export type PrefixFn = (prev: Piece, budget: number) => Item | null;

/** Items of the same block that were contiguous in the source keep their original separator. */
function separator(prev: Item, next: Item): string {
  return prev.lastBlock === next.firstBlock && next.firstSeg > 0 ? next.sep : '\n\n';
}

export function renderPiece(items: Item[]): Piece {
  const offsets: number[] = [];
  let text = '';
  let prev: Item | undefined;
  for (const item of items) {
    // A figure without text of its own still belongs to the chunk (by id) but adds no separator.
    if (item.text === '') {
      offsets.push(text.length);
      continue;
    }
    if (prev) text += separator(prev, item);
    offsets.push(text.length);
    text += item.text;
    prev = item;
  }
  return { text, items, offsets };
}

/**
 * Greedy packing: items accumulate until the next one would pass `target`, then a piece is cut and the
 * next one opens with `prefix(previous piece)`. Every item must be at most `target` tokens; since token
 * counts add up over whitespace joins, every piece then stays within `target`.
 */
export class Packer {
  private items: Item[] = [];
  private tokens = 0;
  private readonly pieces: Piece[] = [];

  constructor(
    private readonly target: number,
    private readonly prefix: PrefixFn | null,
  ) {}

  add(item: Item): void {
    if (this.items.length > 0 && this.tokens + item.tokens > this.target) {
      const piece = renderPiece(this.items);
      this.pieces.push(piece);
      this.items = [];
      this.tokens = 0;
      const head = this.prefix?.(piece, this.target - item.tokens) ?? null;
      if (head && head.tokens + item.tokens <= this.target) {
        this.items.push(head);
        this.tokens = head.tokens;
      }
    }
    this.items.push(item);
    this.tokens += item.tokens;
  }

  finish(): Piece[] {
    if (this.items.some((i) => i.role !== 'prefix')) this.pieces.push(renderPiece(this.items));
    this.items = [];
    this.tokens = 0;
    return this.pieces;
  }
}

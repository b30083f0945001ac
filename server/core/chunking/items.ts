import type { Item, PrefixFn } from './packer.js';
import { splitToBudget } from './segments.js';
import { countTokens, tailStart } from './tokens.js';
import type { PreparedBlock } from './units.js';

/**
 * The items of one block: the whole block when it fits in `max` tokens (blocks are never cut without
 * need), else its sentences (lines for code and tables), words, or fragments, each within `max`.
 */
export function blockItems(blocks: PreparedBlock[], index: number, max: number, role: Item['role']): Item[] {
  const block = blocks[index]!;
  const item = (text: string, tokens: number, firstSeg: number, sep: string): Item => ({
    text,
    tokens,
    blockIds: [block.id],
    pages: [block.page],
    firstBlock: index,
    firstSeg,
    lastBlock: index,
    sep,
    role,
    type: block.type,
  });
  if (block.tokens <= max) return [item(block.text, block.tokens, 0, '')];
  const mode = block.type === 'code' || block.type === 'table' ? 'lines' : 'prose';
  return splitToBudget(block.text, max, mode).map((s, k) => item(s.text, s.tokens, k, s.sep));
}

/**
 * Overlap for continuations: the tail of the previous piece, at most `maxTokens` (and at most what leaves
 * room for the item that forced the split). The overlap carries the ids and pages of every block its text
 * comes from: block_ids then lists every block whose text the chunk shows, so a reviewer who edits a block
 * finds every chunk that quotes it, and the chunk id (a hash of the text) changes exactly for those chunks.
 */
export function overlapPrefix(maxTokens: number): PrefixFn {
  return (prev, budget) => {
    const n = Math.min(maxTokens, budget);
    if (n <= 0) return null;
    const start = tailStart(prev.text, n);
    const text = prev.text.slice(start).trimEnd();
    if (text === '') return null;
    const blockIds: string[] = [];
    const pages: number[] = [];
    prev.items.forEach((item, k) => {
      if (prev.offsets[k]! + item.text.length <= start) return;
      blockIds.push(...item.blockIds);
      pages.push(...item.pages);
    });
    return {
      text,
      tokens: countTokens(text),
      blockIds,
      pages,
      firstBlock: -1,
      firstSeg: 0,
      lastBlock: prev.items[prev.items.length - 1]!.lastBlock,
      sep: '',
      role: 'prefix',
      type: null,
    };
  };
}

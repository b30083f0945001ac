import type { Block } from '../api/types.js';

/**
 * Below this confidence a block counts as flagged when a server sends a confidence but no flag; the same
 * 70% line as Lectern's server (server/core/review/ocr-flags.ts), whose own flag wins whenever it is sent.
 */
export const FLAG_BELOW = 0.7;

const normalised = (c: number) => (c > 1 ? c / 100 : c);

export function isFlagged(b: Block): boolean {
  if (typeof b.flagged === 'boolean') return b.flagged;
  return typeof b.confidence === 'number' && normalised(b.confidence) < FLAG_BELOW;
}

/**
 * The review queue: flagged blocks still pending first (least confident first), then the other pending
 * blocks in reading order, then everything already reviewed. Work the machine was unsure of comes first;
 * reviewed blocks stay reachable at the end rather than vanishing.
 */
export function queueOrder(blocks: readonly (Block | undefined)[]): number[] {
  const flagged: number[] = [];
  const pending: number[] = [];
  const done: number[] = [];
  blocks.forEach((b, i) => {
    if (!b) return;
    if (b.status !== 'pending') done.push(i);
    else if (isFlagged(b)) flagged.push(i);
    else pending.push(i);
  });
  const conf = (i: number) => normalised(blocks[i]?.confidence ?? 1);
  flagged.sort((a, c) => conf(a) - conf(c) || a - c);
  return [...flagged, ...pending, ...done];
}

/**
 * What "Flagged first" did, in words: with nothing flagged the order barely changes, and the reviewer
 * must hear that rather than wonder whether the button worked.
 */
export function queueSummary(blocks: readonly (Block | undefined)[]): string {
  let flagged = 0;
  let pending = 0;
  for (const b of blocks) {
    if (b?.status !== 'pending') continue;
    if (isFlagged(b)) flagged += 1;
    else pending += 1;
  }
  if (flagged === 0)
    return `No block is flagged for low OCR confidence: the ${pending} pending block(s) come first, in reading order.`;
  return `${flagged} flagged block(s) first (least confident first), then ${pending} other pending.`;
}

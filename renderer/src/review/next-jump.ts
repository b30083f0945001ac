import type { Block } from '../api/types.js';
import { isFlagged } from './queue-order.js';

export type JumpKind = 'pending' | 'flagged';

const wanted: Record<JumpKind, (b: Block) => boolean> = {
  pending: (b) => b.status === 'pending',
  flagged: (b) => isFlagged(b) && b.status === 'pending',
};

/** Where a jump lands: the position in the list, and whether it went round the end to get there. */
export interface Jump {
  pos: number;
  wrapped: boolean;
}

/**
 * The next (or previous) block of the list after position `from` that is pending, or flagged and still
 * pending, going round the end; null when there is none besides, possibly, the one at `from`. The list's
 * own order is followed, so a filter or the flagged-first queue decide what "next" means.
 */
export function jump(
  order: readonly number[],
  from: number,
  dir: 1 | -1,
  kind: JumpKind,
  at: (i: number) => Block | undefined,
): Jump | null {
  const n = order.length;
  for (let step = 1; step <= n; step++) {
    const p = (((from + dir * step) % n) + n) % n;
    const b = at(order[p] ?? -1);
    if (!b || !wanted[kind](b)) continue;
    if (p === from) return null;
    return { pos: p, wrapped: dir > 0 ? p < from : p > from };
  }
  return null;
}

/** What the reviewer is told when a jump finds nothing, or had to go round. */
export function jumpMessage(kind: JumpKind, j: Jump | null, dir: 1 | -1, filtered: boolean): string | null {
  const what = kind === 'pending' ? 'pending block' : 'flagged block still pending';
  if (!j) return `No other ${what}${filtered ? ' in the filtered list' : ''}.`;
  if (j.wrapped) return `Went round to the ${dir > 0 ? 'first' : 'last'} ${what}.`;
  return null;
}

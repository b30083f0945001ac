import { describe, expect, it } from 'vitest';
import type { Block } from '../../renderer/src/api/types.js';
import { jump, jumpMessage } from '../../renderer/src/review/next-jump.js';
import { reviewTally } from '../../renderer/src/review/review-progress.js';

// The decisions behind the desk's next pending / flagged jumps and its session count, without a browser
// (the browser test, review-list-tools.test.ts, drives them through the keys and buttons).

const blk = (id: number, status: Block['status'], flagged = false): Block =>
  ({
    block_id: `b${id}`,
    status,
    flagged,
    text: `t${id}`,
    edited_text: null,
    edited_type: null,
    type: 'paragraph',
  }) as unknown as Block;

describe('jump', () => {
  const blocks = [
    blk(1, 'approved'),
    blk(2, 'pending', true),
    blk(3, 'pending'),
    blk(4, 'rejected'),
    blk(5, 'pending', true),
    blk(6, 'approved'),
  ];
  const at = (i: number) => blocks[i];
  const order = blocks.map((_, i) => i);

  it('finds the next pending block after the selection and goes round the end', () => {
    expect(jump(order, 0, 1, 'pending', at)).toEqual({ pos: 1, wrapped: false });
    expect(jump(order, 2, 1, 'pending', at)).toEqual({ pos: 4, wrapped: false });
    expect(jump(order, 4, 1, 'pending', at)).toEqual({ pos: 1, wrapped: true });
    expect(jump(order, 1, -1, 'pending', at)).toEqual({ pos: 4, wrapped: true });
  });

  it('finds flagged blocks still pending only, and says none when the selected one is the only one', () => {
    expect(jump(order, 1, 1, 'flagged', at)).toEqual({ pos: 4, wrapped: false });
    expect(jump(order, 4, 1, 'flagged', at)).toEqual({ pos: 1, wrapped: true });
    const one = [blk(1, 'approved'), blk(2, 'pending', true)];
    expect(jump([0, 1], 1, 1, 'flagged', (i) => one[i])).toBeNull();
    expect(jump([0, 1], 0, 1, 'flagged', (i) => [blk(1, 'approved'), blk(2, 'approved', true)][i])).toBeNull();
    expect(jump([], 0, 1, 'pending', at)).toBeNull();
  });

  it('follows the list order it is given (a filter or the flagged-first queue)', () => {
    expect(jump([5, 2, 0], 0, 1, 'pending', at)).toEqual({ pos: 1, wrapped: false });
    expect(jump([5, 0], 0, 1, 'pending', at)).toBeNull();
  });

  it('says when nothing is found and when it went round', () => {
    expect(jumpMessage('pending', null, 1, true)).toBe('No other pending block in the filtered list.');
    expect(jumpMessage('flagged', null, 1, false)).toBe('No other flagged block still pending.');
    expect(jumpMessage('pending', { pos: 0, wrapped: true }, -1, false)).toBe('Went round to the last pending block.');
    expect(jumpMessage('pending', { pos: 3, wrapped: false }, 1, false)).toBeNull();
  });
});

describe('reviewTally', () => {
  it('counts by status, and this session only the blocks whose decision changed to a reviewed one', () => {
    const initial = new Map<string, Block['status']>([
      ['b1', 'pending'],
      ['b2', 'pending'],
      ['b3', 'approved'],
      ['b4', 'approved'],
    ]);
    const t = reviewTally(
      [blk(1, 'approved'), blk(2, 'pending'), blk(3, 'approved'), blk(4, 'rejected'), undefined],
      initial,
    );
    expect(t).toEqual({ by: { pending: 1, approved: 2, edited: 0, rejected: 1 }, total: 4, reviewed: 3, session: 2 });
    // Undone back to pending: no longer counted.
    expect(reviewTally([blk(1, 'pending')], initial).session).toBe(0);
  });
});

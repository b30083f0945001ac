import { describe, expect, it } from 'vitest';
import { ApiError } from '../../renderer/src/api/client.js';
import type { Job } from '../../renderer/src/api/types.js';
import { finalizeErrorText, policyEffect, POLICIES } from '../../renderer/src/finalize/finalize-policy.js';
import { DeskMemory } from '../../renderer/src/review/desk-memory.js';
import { wordDiff } from '../../renderer/src/review/word-diff.js';

// Decisions behind defects 5 to 7 of "The review desk" that need no browser: the conflict dialog's word
// diff, the per-job desk memory's bound, and the words finalize uses for policies and refusals.

const marked = (base: string, side: string) =>
  wordDiff(base, side)
    .map((p) => (p.kind === 'same' ? p.text : p.kind === 'added' ? `[+${p.text}]` : `[-${p.text}]`))
    .join('');

describe('wordDiff', () => {
  it('marks only the words a side changed', () => {
    expect(marked('the small stone near the river.', 'the tiny stone near the river.')).toBe(
      'the [-small][+tiny] stone near the river.',
    );
    expect(marked('the small stone', 'the small stone')).toBe('the small stone');
    expect(marked('one two three', 'one three')).toBe('one [-two ]three');
    expect(marked('near the river.', 'near the river!')).toBe('near the river[-.][+!]');
  });

  it('gives back both texts whole: the side from kept and added runs, the base from kept and removed ones', () => {
    const base = 'Alpha beta gamma delta epsilon zeta eta theta.';
    const side = 'Alpha gamma DELTA epsilon and zeta eta theta iota.';
    const parts = wordDiff(base, side);
    const textWithout = (skipped: 'added' | 'removed') =>
      parts
        .filter((p) => p.kind !== skipped)
        .map((p) => p.text)
        .join('');
    expect(textWithout('removed')).toBe(side);
    expect(textWithout('added')).toBe(base);
  });

  it('stays cheap on long texts with one change', () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' ');
    const parts = wordDiff(words, words.replace('w10000', 'changed'));
    expect(parts.filter((p) => p.kind !== 'same').map((p) => p.text)).toEqual(['w10000', 'changed']);
  });
});

describe('DeskMemory', () => {
  it('keeps one state per job and forgets the least recently used beyond its bound', () => {
    const m = new DeskMemory(2);
    const a = m.of('a');
    a.blockId = 'b7';
    m.of('b');
    expect(m.of('a')).toBe(a);
    m.of('c');
    expect(m.of('a').blockId).toBe('b7');
    expect(m.of('b').blockId).toBeNull();
  });
});

describe('finalize words', () => {
  const job = {
    review: {
      blocks: { pending: 1, approved: 3, edited: 0, rejected: 0 },
      chunks: { pending: 2, approved: 0, edited: 0, rejected: 0, stale: 1 },
    },
  } as Job;

  it('says what each policy does with the counts, the one that settles nothing first', () => {
    expect(POLICIES[0]?.value).toBe('require_all_approved');
    expect(policyEffect('require_all_approved', job)).toBe(
      'Changes nothing. Refused now: 1 pending block, 2 pending chunks and 1 stale chunk must be reviewed first.',
    );
    expect(policyEffect('auto_approve_pending', job)).toContain('Approves 1 pending block and 2 pending chunks');
    expect(policyEffect('auto_reject_pending', job)).toContain('Rejects 1 pending block');
  });

  it('words a PENDING_ITEMS refusal with its counts and an unknown failure with its message', () => {
    const refused = new ApiError(409, 'PENDING_ITEMS', 'every block and chunk must be reviewed', {
      pending_blocks: 3,
      pending_chunks: 0,
      stale_chunks: 1,
    });
    expect(finalizeErrorText(refused)).toBe(
      'Not finalized: 3 blocks are still pending and 1 chunk is stale (Rechunk on the Chunks screen rebuilds it). Review them, or choose a policy that settles what is pending.',
    );
    expect(finalizeErrorText(new ApiError(409, 'INVALID_STATE', 'cannot finalize', { status: 'finalized' }))).toContain(
      'the job is finalized',
    );
    expect(finalizeErrorText(new Error('network down'))).toBe('Finalize failed: network down');
  });
});

import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkHeap,
  collectGarbage as gc,
  HEAP_SHARE,
  resetHeapGuard,
  setHeapBudget,
} from '../../server/core/extract/heap-guard.js';

// The pool gives its threads a V8 limit above their budget (worker_heap_mb), so the guard counts documents
// against the budget: garbage past the allowed share must not fail a document, live data must.

const MB = 2 ** 20;

/** Arrays of doubles on the V8 heap (a typed array's bytes are not), `mb` MB in all, moved to the old generation. */
function oldArrays(mb: number): number[][] {
  const out = Array.from({ length: mb }, () => new Array<number>(MB / 8).fill(0.5));
  gc();
  return out;
}

afterEach(() => {
  setHeapBudget(undefined);
  resetHeapGuard();
});

describe("the heap guard with a budget below V8's limit", () => {
  it('collects garbage past the share instead of failing the document, and fails it for live data', () => {
    gc();
    const live = getHeapStatistics().used_heap_size;
    // The budget lets a document fill 48 MB more than this thread holds now.
    setHeapBudget(Math.ceil((live + 48 * MB) / HEAP_SHARE / MB));
    resetHeapGuard();
    let garbage: number[][] | null = oldArrays(96);
    garbage = null;
    expect(garbage).toBeNull();
    // 96 MB of old arrays nobody holds: counted in the heap until a full collection.
    expect(getHeapStatistics().used_heap_size - live).toBeGreaterThan(48 * MB);
    expect(() => checkHeap()).not.toThrow();
    const held = oldArrays(96);
    expect(() => checkHeap()).toThrow(expect.objectContaining({ code: 'OUT_OF_MEMORY' }));
    expect(held).toHaveLength(96);
  });
});

import { describe, expect, it } from 'vitest';
import { llmThreads } from '../../server/models/llm/llm-threads.js';

describe('local chat threads', () => {
  it('reads the prompt with every core only while the pool is idle and the machine is quiet, and writes with one core fewer', () => {
    const two = llmThreads(0, 2);
    expect(two.threads).toBe(1);
    expect(two.prefillThreads({ poolTasks: 0, loadAverage: 0.9 })).toBe(2);
    expect(two.prefillThreads({ poolTasks: 1, loadAverage: 0.2 })).toBe(1);
    expect(two.prefillThreads({ poolTasks: 0, loadAverage: 1.6 })).toBe(1);
    const eight = llmThreads(0, 8);
    expect(eight.threads).toBe(3);
    expect(eight.prefillThreads({ poolTasks: 0, loadAverage: 2 })).toBe(4);
    const one = llmThreads(0, 1);
    expect([one.threads, one.prefillThreads({ poolTasks: 0, loadAverage: 0 })]).toEqual([1, 1]);
  });

  it('uses llm_threads for both when it is set', () => {
    const set = llmThreads(3, 2);
    expect([
      set.threads,
      set.prefillThreads({ poolTasks: 5, loadAverage: 9 }),
      set.prefillThreads({ poolTasks: 0, loadAverage: 0 }),
    ]).toEqual([3, 3, 3]);
  });
});

import { expect } from 'vitest';

/**
 * What a job whose workers were killed under it twice ends as: its task failed at the third attempt instead
 * of running again, and the job, in `status`, says WORKER_DIED.
 */
export function expectDiedTwice(job: Record<string, any>, status: string, tasks: unknown[]): void {
  expect(job).toMatchObject({ status, error: { code: 'WORKER_DIED', message: expect.stringContaining('2 times') } });
  expect(tasks).toEqual([
    expect.objectContaining({ state: 'failed', attempts: 3, error: expect.objectContaining({ code: 'WORKER_DIED' }) }),
  ]);
}

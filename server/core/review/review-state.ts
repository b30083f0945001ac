import { AppError } from '../errors.js';

export const REVIEW_STATUSES = ['pending', 'approved', 'edited', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Review happens only while a job is ready_for_review; any other state is a 409. */
export function requireState(job: { status: string }, allowed: readonly string[], what: string): void {
  if (!allowed.includes(job.status)) {
    throw new AppError('INVALID_STATE', `cannot ${what} while the job is ${job.status}`, {
      status: job.status,
      allowed_states: allowed,
    });
  }
}

/** How an edit request moves a review status when the caller does not name one. */
export function nextStatus(current: string, requested: string | undefined, edited: boolean, hasEdits: boolean): string {
  if (requested) return requested;
  if (edited) return hasEdits ? 'edited' : 'pending';
  return current;
}

import type { JobView } from '../core/views.js';

/**
 * The 201 of POST /jobs: the job as LongParser's JobResponse has it (tenant_id, totals, review_progress,
 * finalized_at, error as a string) beside Lectern's own fields. A new job has nothing reviewed yet.
 */
export function uploadAnswer(job: JobView, keyName: string) {
  return {
    ...job,
    tenant_id: keyName,
    review_progress: { approved: 0, edited: 0, rejected: 0, pending: 0 },
    error: job.error?.message ?? null,
  };
}

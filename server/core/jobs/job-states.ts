/**
 * Job states: the spec's, plus the transient `finalizing` while finalize rebuilds stale chunks and
 * `embedding` while POST embed runs (back to finalized/indexed if it fails).
 */
export const JOB_STATES = [
  'queued',
  'processing',
  'ready_for_review',
  'finalizing',
  'finalized',
  'embedding',
  'indexed',
  'failed',
  'cancelled',
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Job states: the spec's, plus the transient `finalizing` while finalize rebuilds stale chunks. */
export const JOB_STATES = ['queued', 'processing', 'ready_for_review', 'finalizing', 'finalized', 'indexed', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

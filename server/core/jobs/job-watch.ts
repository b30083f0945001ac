/**
 * In-process notices that a job's row changed, for clients following the job (GET /jobs/{id}/events).
 * The job runner calls `changed` on each move of an ingest (claimed, pages done, saved, failed), so a
 * follower hears of them at once instead of polling over HTTP; moves made elsewhere (cancel, finalize,
 * embedding) reach followers through their own slower beat.
 */
export function createJobWatch() {
  const listeners = new Map<string, Set<() => void>>();
  const everyJob = new Set<(jobId: string) => void>();
  return {
    changed(jobId: string): void {
      for (const listener of listeners.get(jobId) ?? []) listener();
      for (const listener of everyJob) listener(jobId);
    },
    /** Hears of every job's changes (the bots pipeline carries bot documents on from them). */
    watchAll(listener: (jobId: string) => void): () => void {
      everyJob.add(listener);
      return () => everyJob.delete(listener);
    },
    /** Calls `listener` after each change of the job until the returned function is called. */
    watch(jobId: string, listener: () => void): () => void {
      let set = listeners.get(jobId);
      if (!set) listeners.set(jobId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(jobId);
      };
    },
  };
}
export type JobWatch = ReturnType<typeof createJobWatch>;

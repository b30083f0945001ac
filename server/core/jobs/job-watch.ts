/**
 * Notices that a job's row changed, for clients following the job (GET /jobs/{id}/events) and the bots
 * pipeline. The job runner calls `changed` on each move of an ingest (claimed, pages done, saved, failed)
 * and of an embed (chunks embedded, indexed, back to rest), so a follower hears of them at once instead of
 * polling over HTTP (the indexer's finished() waits on them); finalize reaches followers through their own
 * slower beat.
 *
 * On a team server the job may be read on another node: `relay` sends each change to the other nodes
 * (store/postgres/job-notices.ts), whose notices come back in through `heard`.
 */
export function createJobWatch({ relay }: { relay?: (jobId: string) => void } = {}) {
  const listeners = new Map<string, Set<() => void>>();
  const everyJob = new Set<(jobId: string) => void>();
  const onMissed = new Set<() => void>();
  const tell = (jobId: string): void => {
    for (const listener of listeners.get(jobId) ?? []) listener();
    for (const listener of everyJob) listener(jobId);
  };
  return {
    changed(jobId: string): void {
      tell(jobId);
      relay?.(jobId);
    },
    /** A change another node made. */
    heard: tell,
    /** Changes of other nodes may have gone unheard (the connection that hears them was down and is back). */
    missed(): void {
      for (const listener of onMissed) listener();
    },
    /** Hears that changes may have been missed: look again at what depends on them. */
    watchMissed(listener: () => void): () => void {
      onMissed.add(listener);
      return () => onMissed.delete(listener);
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

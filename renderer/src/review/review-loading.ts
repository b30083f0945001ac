import type { Api } from '../api/client.js';
import { loadAll } from '../api/load-all.js';
import type { Block, Job } from '../api/types.js';
import type { BlockStore } from './block-store.js';

export interface ReviewLoad {
  api: Api;
  jobId: string;
  store: BlockStore;
  signal: AbortSignal;
  /** The job's row arrived; it only labels the desk, so the blocks do not wait for it. */
  jobRead(job: Job): void;
  jobFailed(err: unknown): void;
  /** A page of blocks is in the store; `first` for the one the desk draws first. */
  blocksArrived(first: boolean): void;
}

/** Resolves once the frame with the first blocks has been painted (the task after its animation frame). */
const afterFirstPaint = () =>
  new Promise<void>((resolve) =>
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('review:first-painted');
        resolve();
      }),
    ),
  );

/**
 * Reads a job and its blocks into the desk's store: the job and the first blocks are asked for together,
 * the rest of the blocks behind them. Resolves when every block is in. User Timing marks say where
 * opening time goes (the large-job test reads them).
 */
export async function loadReview(l: ReviewLoad): Promise<void> {
  performance.mark('review:open');
  void l.api.get<Job>(`/jobs/${encodeURIComponent(l.jobId)}`, l.signal).then(l.jobRead, l.jobFailed);
  let first = true;
  await loadAll<Block>(
    l.api,
    `/jobs/${encodeURIComponent(l.jobId)}/blocks`,
    (skip, items, total) => {
      if (first) performance.mark('review:first-blocks');
      l.store.fill(skip, items, total);
      l.blocksArrived(first);
      if (first) performance.mark('review:first-drawn');
      first = false;
    },
    // 100 blocks fill the first screen and the first pages; they come back several times faster than 500.
    { signal: l.signal, firstPage: 100, afterFirst: afterFirstPaint },
  );
}

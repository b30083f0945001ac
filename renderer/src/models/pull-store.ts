import type { Static } from 'typebox';
import type { PullDone, PullProgress as PullProgressSchema } from '../../../server/schemas/models.js';
import { ApiError, type Api } from '../api/client.js';
import { streamedAnswer } from '../search/sse.js';

export type PullProgress = Static<typeof PullProgressSchema>;
type PullResult = Static<typeof PullDone>;

export interface DeskPull {
  readonly modelId: string;
  /** The latest progress; undefined until the server told any. */
  progress?: PullProgress;
  /** Settles with the verified model, or rejects with the stream's coded error (PULL_CANCELLED when stopped). */
  readonly done: Promise<PullResult>;
  /** Hears each progress until the pull ends; returns the way to stop hearing it. */
  watch(listener: (p: PullProgress) => void): () => void;
}

/**
 * The desk's pulls, one per model, kept apart from any screen: a download started from the chat panel
 * goes on while the reviewer opens the Models screen (which shows the same pull), and vice versa.
 */
const pulls = new Map<string, DeskPull>();

export const runningPull = (modelId: string): DeskPull | undefined => pulls.get(modelId);

/** Listeners of any pull starting or ending (the Models screen redraws its rows). */
const changes = new Set<() => void>();
export function onPullsChanged(listener: () => void): () => void {
  changes.add(listener);
  return () => changes.delete(listener);
}
const changed = (): void => changes.forEach((l) => l());

/** Starts (or joins, server-side) the pull of a model over POST /models/{id}/pull, read as it streams. */
export function startPull(api: Api, modelId: string): DeskPull {
  const existing = pulls.get(modelId);
  if (existing) return existing;
  const listeners = new Set<(p: PullProgress) => void>();
  const pull: DeskPull = {
    modelId,
    done: (async () => {
      const res = await api.stream(`/models/${encodeURIComponent(modelId)}/pull`, {});
      let failure: ApiError | undefined;
      const result = await streamedAnswer<PullResult, PullProgress & { code: string; message: string }>(
        res,
        (event, data) => {
          if (event === 'progress') {
            pull.progress = data;
            listeners.forEach((l) => l(data));
          } else if (event === 'error') failure = new ApiError(200, data.code, data.message);
        },
      );
      if (failure) throw failure;
      if (!result) throw new ApiError(0, 'PULL_CANCELLED', 'the download stopped before it was complete');
      return result;
    })(),
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  pulls.set(modelId, pull);
  const finished = (): void => {
    pulls.delete(modelId);
    changed();
  };
  pull.done.then(finished, finished);
  changed();
  return pull;
}

/** Cancels a model's pull for everyone following it (DELETE /models/{id}/pull); the bytes stay for a Resume. */
export async function cancelPull(api: Api, modelId: string): Promise<void> {
  await api.send('DELETE', `/models/${encodeURIComponent(modelId)}/pull`);
}

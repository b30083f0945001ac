import { describeFailure } from '../core/errors.js';
import { MODEL_CATALOG, findCatalogModel, type CatalogModel } from './catalog.js';
import type { ModelManager, VerifyResult } from './manager.js';
import { ModelError } from './model-error.js';

/** Where a pull stands: every file's bytes on disk out of the bytes it downloads (an archive's, for a wheel). */
export interface PullProgress {
  model_id: string;
  /** The file being worked on, as the catalog names it. */
  file: string;
  /** `download`: bytes arriving; `verify`: the file is whole and its sha256 is being checked. */
  phase: 'download' | 'verify';
  file_bytes: number;
  file_total: number;
  received_bytes: number;
  total_bytes: number;
}

export type PullEvent =
  | { type: 'progress'; progress: PullProgress }
  | { type: 'done'; result: VerifyResult }
  | { type: 'error'; error: { code: string; message: string } };

export interface ModelPull {
  readonly modelId: string;
  /** The latest progress (what a caller joining late is shown first). */
  progress(): PullProgress;
  /**
   * Hears the pull's events until it ends. The returned function stops hearing them; when the last
   * follower stops before the end, nobody waits for the pull any more and it is cancelled (the bytes
   * downloaded stay on disk, and the next pull resumes from them).
   */
  follow(listener: (e: PullEvent) => void): () => void;
  /** Settles when the pull has ended, however it ended. */
  readonly ended: Promise<void>;
}

export interface ModelPulls {
  /** The running pull of a model, or a new one; `joined` when one was already running. */
  start(id: string): { pull: ModelPull; joined: boolean };
  running(id: string): ModelPull | undefined;
  /** Stops a running pull for every follower (they get an `error` event PULL_CANCELLED); false when none runs. */
  cancel(id: string): boolean;
  /** Stops every pull and waits for them to end (server shutdown). */
  close(): Promise<void>;
}

/** Progress events at most this often per pull: enough for a progress bar, not a flood on a fast disk. */
const PROGRESS_EVERY_MS = 100;

/** Bytes a file's pull fetches: the archive's size when the file comes inside one. */
const downloadSize = (f: CatalogModel['files'][number]): number => f.archive?.size ?? f.size;

/**
 * One pull per model at a time, shared by every caller: a second POST /models/{id}/pull follows the first
 * instead of writing the same `.part` file beside it. The manager does the download itself (resumable,
 * sha256-checked before anything is renamed into place).
 */
export function createModelPulls(deps: { models: ModelManager; catalog?: readonly CatalogModel[] }): ModelPulls {
  const catalog = deps.catalog ?? deps.models.catalog ?? MODEL_CATALOG;
  const pulls = new Map<string, ModelPull & { abort(): void }>();

  function begin(m: CatalogModel): ModelPull & { abort(): void } {
    const controller = new AbortController();
    const listeners = new Set<(e: PullEvent) => void>();
    const fileBytes = new Map(m.files.map((f) => [f.path, 0]));
    const total = m.files.reduce((s, f) => s + downloadSize(f), 0);
    let current: PullProgress = {
      model_id: m.id,
      file: m.files[0]?.path ?? '',
      phase: 'download',
      file_bytes: 0,
      file_total: 0,
      received_bytes: 0,
      total_bytes: total,
    };
    let lastSent = 0;
    let trailing: NodeJS.Timeout | undefined;
    const emit = (e: PullEvent): void => {
      for (const l of [...listeners]) l(e);
    };
    const sendProgress = (): void => {
      clearTimeout(trailing);
      trailing = undefined;
      lastSent = Date.now();
      emit({ type: 'progress', progress: current });
    };
    const ended = deps.models
      .pull(m.id, {
        signal: controller.signal,
        onProgress: (p) => {
          const previous = current;
          fileBytes.set(p.file, p.receivedBytes);
          const received = [...fileBytes.values()].reduce((s, b) => s + b, 0);
          current = {
            model_id: m.id,
            file: p.file,
            phase: p.phase ?? 'download',
            file_bytes: p.receivedBytes,
            file_total: p.totalBytes,
            received_bytes: received,
            total_bytes: total,
          };
          // A new file or phase is always told; bytes arriving, a few times a second.
          const turn = previous.file !== current.file || previous.phase !== current.phase;
          const wait = PROGRESS_EVERY_MS - (Date.now() - lastSent);
          if (turn || wait <= 0) return sendProgress();
          // Held back, but told once the window is over: the bytes of a stalled download are not left untold.
          trailing ??= setTimeout(sendProgress, wait);
        },
      })
      .then((result): PullEvent => {
        if (!result.ok) {
          const bad = result.files.filter((f) => !f.ok).map((f) => `${f.path}: ${f.problem}`);
          throw new ModelError(
            'MODEL_CHECKSUM_MISMATCH',
            `${m.id} does not verify after the download (${bad.join('; ')})`,
            { id: m.id, files: result.files },
          );
        }
        return { type: 'done', result };
      })
      .catch((err: unknown): PullEvent => {
        const error = controller.signal.aborted
          ? {
              code: 'PULL_CANCELLED',
              message: `the pull of ${m.id} was cancelled; what was downloaded stays, and the next pull resumes from it`,
            }
          : describeFailure(err);
        return { type: 'error', error };
      })
      .then((last) => {
        // Gone from the running pulls before the end is told: a caller arriving now starts a new pull
        // rather than following one that has nothing more to say.
        clearTimeout(trailing);
        pulls.delete(m.id);
        emit(last);
        listeners.clear();
      });
    return {
      modelId: m.id,
      progress: () => current,
      ended,
      abort: () => controller.abort(),
      follow(listener) {
        listeners.add(listener);
        return () => {
          if (!listeners.delete(listener)) return;
          if (listeners.size === 0 && pulls.get(m.id)) controller.abort();
        };
      },
    };
  }

  return {
    start(id) {
      const m = findCatalogModel(catalog, id);
      if (!m)
        throw new ModelError(
          'MODEL_NOT_FOUND',
          `Unknown model ${id}; known models: ${catalog.map((c) => c.id).join(', ')}`,
          { id },
        );
      const running = pulls.get(id);
      if (running) return { pull: running, joined: true };
      const pull = begin(m);
      pulls.set(id, pull);
      return { pull, joined: false };
    },
    running: (id) => pulls.get(id),
    cancel(id) {
      const pull = pulls.get(id);
      pull?.abort();
      return pull !== undefined;
    },
    async close() {
      const all = [...pulls.values()];
      for (const p of all) p.abort();
      await Promise.all(all.map((p) => p.ended));
    },
  };
}

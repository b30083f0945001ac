/**
 * Waits `ms`, or less when `signal` aborts first. It never rejects (unlike node:timers/promises), so that a
 * loop waiting between tries checks the signal itself and ends the way it chooses.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

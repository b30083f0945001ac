export interface ShutdownStep {
  name: string;
  run(): Promise<void>;
}

export interface ShutdownReport {
  /** Names of the steps that threw or did not finish in time. */
  failed: { name: string; reason: string }[];
  ms: number;
}

/**
 * Runs the close steps once, in order, however many quit events arrive (Electron sends will-quit again
 * after app.exit, and a second Ctrl+C is common). Each step gets `stepTimeoutMs`: a hung worker must not
 * keep the app alive forever, and a failing step must not stop the ones after it (the database still
 * closes when the pool does not).
 */
export function createShutdown(
  steps: ShutdownStep[],
  stepTimeoutMs = 5_000,
  now: () => number = Date.now,
): () => Promise<ShutdownReport> {
  let running: Promise<ShutdownReport> | undefined;
  const runAll = async (): Promise<ShutdownReport> => {
    const start = now();
    const failed: ShutdownReport['failed'] = [];
    for (const step of steps) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${stepTimeoutMs} ms`)), stepTimeoutMs);
      });
      try {
        await Promise.race([step.run(), timeout]);
      } catch (err) {
        failed.push({ name: step.name, reason: err instanceof Error ? err.message : String(err) });
      } finally {
        clearTimeout(timer);
      }
    }
    return { failed, ms: now() - start };
  };
  return () => (running ??= runAll());
}

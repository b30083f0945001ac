/** What the machine is doing when a prompt is about to be read. */
export interface MachineNow {
  /** Tasks the server's worker pool is running (reading documents, OCR, embedding). */
  poolTasks: number;
  /** The 1-minute load average (runnable processes, this server's included). */
  loadAverage: number;
}

export interface LlmThreads {
  /** Threads that write an answer. */
  threads: number;
  /** Threads that read the next prompt, decided as it is sent. */
  prefillThreads: (now: MachineNow) => number;
}

/**
 * Threads for local chat on `cores` cores. Writing an answer: one core is left to the worker pool and the
 * HTTP thread, as a llama thread whose core is taken spins waiting for it (bench:chat on 2 loaded cores:
 * 1.9 tokens/s with 2 threads, 21.7 with 1). Reading the prompt, most of the wait for the first token:
 * every core (at most 4) while the pool has nothing to do and the machine is not busy with other work
 * (load average under cores - 0.5; the server's own last answer counts about 1). llm_threads set: that.
 */
export function llmThreads(setting: number, cores: number): LlmThreads {
  if (setting > 0) return { threads: setting, prefillThreads: () => setting };
  const most = Math.max(1, Math.min(4, cores));
  const threads = Math.max(1, most - 1);
  return { threads, prefillThreads: (now) => (now.poolTasks === 0 && now.loadAverage < cores - 0.5 ? most : threads) };
}

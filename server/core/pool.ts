import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ExtractTaskInput, ProgressMessage, TaskMap } from './tasks.js';

/**
 * Below this many pages a PDF is read by one worker: each extra reader opens the document again and
 * learns its fonts again, which costs more than it saves on a short document (measured: 44 pages read
 * faster on one thread, 500 pages 1.3-1.6x faster on two).
 */
const PARALLEL_MIN_PAGES = 64;

export interface TaskPool {
  readonly threads: number;
  /**
   * Extracts, numbers and chunks a stored document. A long PDF is shared among all threads by page
   * ranges and assembled at the end; progress counts pages done across them.
   */
  extract(
    input: Omit<ExtractTaskInput, 'progressPort'>,
    opts: { signal: AbortSignal; onProgress: (p: ProgressMessage) => void },
  ): Promise<TaskMap['extract']['output']>;
  chunk(input: TaskMap['chunk']['input']): Promise<TaskMap['chunk']['output']>;
  close(): Promise<void>;
}

/** Splits pages 1..total into `n` contiguous ranges of near-equal size. */
export function pageRanges(total: number, n: number): { from: number; to: number }[] {
  const parts = Math.max(1, Math.min(n, total));
  return Array.from({ length: parts }, (_, i) => ({
    from: Math.floor((i * total) / parts) + 1,
    to: Math.floor(((i + 1) * total) / parts),
  }));
}

/** The Piscina pool running workers/index.ts (built to dist/worker.js, or out/main/worker.js in Electron). */
export function createTaskPool(workerFile: string, threads: number): TaskPool {
  const size = threads > 0 ? threads : Math.max(1, availableParallelism());
  // All threads start with the pool and stay: a thread start plus pdf.js load costs about a second.
  const pool = new Piscina({ filename: workerFile, minThreads: size, maxThreads: size });

  function run<K extends keyof TaskMap>(name: K, input: TaskMap[K]['input'], signal?: AbortSignal): Promise<TaskMap[K]['output']> {
    return pool.run(input, { name, signal }) as Promise<TaskMap[K]['output']>;
  }

  /** Runs a task that reports progress on a MessagePort of its own. */
  async function runWithProgress<K extends 'extract' | 'pdfPages'>(
    name: K,
    input: Omit<TaskMap[K]['input'], 'progressPort'>,
    signal: AbortSignal,
    onProgress: (p: ProgressMessage) => void,
  ): Promise<TaskMap[K]['output']> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', onProgress);
    try {
      const withPort = { ...input, progressPort: port2 as MessagePort };
      return (await pool.run(withPort, { name, transferList: [port2], signal })) as TaskMap[K]['output'];
    } finally {
      port1.close();
    }
  }

  async function extractPdfInParallel(input: Omit<ExtractTaskInput, 'progressPort'>, signal: AbortSignal, onProgress: (p: ProgressMessage) => void) {
    const { pages } = await run('pdfInfo', { path: input.path }, signal);
    if (pages < PARALLEL_MIN_PAGES) return runWithProgress('extract', input, signal, onProgress);
    // One failing range stops the others rather than leaving them to finish for nothing.
    const group = new AbortController();
    const stop = () => group.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const ranges = pageRanges(pages, size);
      const done = ranges.map(() => 0);
      const parts = await Promise.all(
        ranges.map((r, i) =>
          runWithProgress('pdfPages', { path: input.path, ...r }, group.signal, ({ pagesDone }) => {
            done[i] = pagesDone;
            onProgress({ pagesDone: done.reduce((a, b) => a + b, 0), totalPages: pages });
          }).catch((err: unknown) => {
            stop();
            throw err;
          }),
        ),
      );
      return await run('assemblePdf', { parts, chunk: input.chunk, id_seed: input.id_seed }, signal);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  return {
    threads: size,
    extract(input, { signal, onProgress }) {
      if (input.format === 'pdf' && size > 1) return extractPdfInParallel(input, signal, onProgress);
      return runWithProgress('extract', input, signal, onProgress);
    },
    chunk: (input) => run('chunk', input),
    async close() {
      await pool.destroy();
    },
  };
}

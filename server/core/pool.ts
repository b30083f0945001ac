import { availableParallelism } from 'node:os';
import { randomUUID } from 'node:crypto';
import { BroadcastChannel, MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ExtractTaskInput, ProgressMessage, TaskMap, WarmUpMessage, WorkerSettings } from './tasks.js';

/**
 * A PDF is shared among the idle threads when it has at least this many pages. Each extra reader opens
 * the document again and names its fonts again, and the page count is read first in a task of its own:
 * on two warm threads that cost more than it saved up to the 44-page fixture (six fixture papers of 2-44
 * pages took 1.67-1.91 s shared against 1.43-1.69 s read whole, two runs of medians of 3), while a
 * 500-page PDF gains from it. Readers style pages the same wherever they start, so the blocks do not depend on it.
 */
const PARALLEL_MIN_PAGES = 64;

export interface TaskPool {
  readonly threads: number;
  /** Threads that have finished warming up (all of them once warm-up is over, or when it is off). */
  warmThreads(): number;
  /**
   * Extracts, numbers and chunks a stored document. A PDF is shared among the idle threads by page
   * ranges and assembled at the end; progress counts pages done across them.
   */
  extract(
    input: Omit<ExtractTaskInput, 'progressPort'>,
    opts: { signal: AbortSignal; onProgress: (p: ProgressMessage) => void },
  ): Promise<TaskMap['extract']['output']>;
  chunk(input: TaskMap['chunk']['input']): Promise<TaskMap['chunk']['output']>;
  /** A page of a stored PDF or image as PNG bytes (pdf.js and canvas live in the workers, not the HTTP thread). */
  renderPage(input: TaskMap['renderPage']['input'], signal?: AbortSignal): Promise<TaskMap['renderPage']['output']>;
  /** OCR of one page or region, with the thread's OCR engine (started once per thread and kept). */
  ocrPage(input: TaskMap['ocrPage']['input'], signal?: AbortSignal): Promise<TaskMap['ocrPage']['output']>;
  /** Embeds texts with a local ONNX model, loaded once per worker thread and kept. */
  embed(input: TaskMap['embed']['input'], signal?: AbortSignal): Promise<TaskMap['embed']['output']>;
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
export function createTaskPool(workerFile: string, threads: number, opts: { warmUpRounds?: number } = {}): TaskPool {
  const size = threads > 0 ? threads : Math.max(1, availableParallelism());
  const workerData: WorkerSettings = { warmUpRounds: opts.warmUpRounds ?? 0, warmUpChannel: `lectern:warm-up:${randomUUID()}` };
  // All threads start with the pool and stay: a thread start plus pdf.js load costs about a second.
  // Atomics off: with them, an idle thread sleeps in Atomics.wait and its event loop stands still, so
  // nothing it starts on its own (loading pdf.js, the warm-up) would run before its first task.
  const pool = new Piscina({ filename: workerFile, minThreads: size, maxThreads: size, workerData, atomics: 'disabled' });
  const warm = new Set<number>();
  const warmUp = new BroadcastChannel(workerData.warmUpChannel);
  warmUp.unref();
  warmUp.onmessage = (event: unknown) => {
    warm.add((event as { data: WarmUpMessage }).data.threadId);
    if (warm.size >= size) warmUp.close();
  };

  /** Tasks sent and not yet settled: a PDF is split only among threads that nothing else waits for. */
  let running = 0;
  async function counted<T>(work: Promise<T>): Promise<T> {
    running++;
    try {
      return await work;
    } finally {
      running--;
    }
  }

  function run<K extends keyof TaskMap>(name: K, input: TaskMap[K]['input'], signal?: AbortSignal): Promise<TaskMap[K]['output']> {
    return counted(pool.run(input, { name, signal }) as Promise<TaskMap[K]['output']>);
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
      return (await counted(pool.run(withPort, { name, transferList: [port2], signal }))) as TaskMap[K]['output'];
    } finally {
      port1.close();
    }
  }

  async function extractPdfInParallel(input: Omit<ExtractTaskInput, 'progressPort'>, signal: AbortSignal, onProgress: (p: ProgressMessage) => void) {
    // On a busy pool splitting only adds work (each reader names the fonts again): one thread reads it.
    const idle = size - running;
    if (idle < 2) return runWithProgress('extract', input, signal, onProgress);
    const { pages } = await run('pdfInfo', { path: input.path }, signal);
    if (pages < PARALLEL_MIN_PAGES) return runWithProgress('extract', input, signal, onProgress);
    // One failing range stops the others rather than leaving them to finish for nothing.
    const group = new AbortController();
    const stop = () => group.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const ranges = pageRanges(pages, idle);
      const done = ranges.map(() => 0);
      const parts = await Promise.all(
        ranges.map((r, i) =>
          runWithProgress('pdfPages', { path: input.path, ocr: input.ocr, ...r }, group.signal, ({ pagesDone }) => {
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
    warmThreads: () => Math.min(size, warm.size),
    extract(input, { signal, onProgress }) {
      if (input.format === 'pdf' && size > 1) return extractPdfInParallel(input, signal, onProgress);
      return runWithProgress('extract', input, signal, onProgress);
    },
    chunk: (input) => run('chunk', input),
    renderPage: (input, signal) => run('renderPage', input, signal),
    ocrPage: (input, signal) => run('ocrPage', input, signal),
    embed: (input, signal) => run('embed', input, signal),
    async close() {
      warmUp.close();
      await pool.destroy();
    },
  };
}

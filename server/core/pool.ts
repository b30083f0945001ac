import { availableParallelism } from 'node:os';
import { randomUUID } from 'node:crypto';
import { BroadcastChannel, MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { DEFAULT_LIMITS, JOB_LIMIT_DEFAULTS, type DocumentLimits } from './extract/limits.js';
import type { ExtractTaskInput, ProgressMessage, TaskMap, WarmUpMessage, WorkerSettings } from './tasks.js';

export interface TaskPool {
  readonly threads: number;
  /** Threads that have finished warming up (all of them once warm-up is over, or when it is off). */
  warmThreads(): number;
  /** Tasks sent and not yet settled (0: the pool's threads are idle). */
  running(): number;
  /**
   * Extracts, numbers and chunks a stored document. A long PDF is shared between two idle threads by
   * page ranges and assembled at the end; progress counts pages done across them.
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
  /** A web page reduced to its main content (Readability walks the tree for seconds on a big page: never on the HTTP thread). */
  readablePage(
    input: TaskMap['readablePage']['input'],
    signal?: AbortSignal,
  ): Promise<TaskMap['readablePage']['output']>;
  close(): Promise<void>;
}

export interface TaskPoolOptions {
  warmUpRounds?: number;
  /** What one document may cost inside the workers (DEFAULT_LIMITS when absent). */
  limits?: DocumentLimits;
  /** Where the threads find OCR languages added to the data folder (see ocr-languages.ts). */
  ocrLanguagesDir?: string;
  /** Each thread's V8 old-generation heap, in MB. */
  workerHeapMb?: number;
  /** Called once every thread has finished its start-up warm-up: from then on the pool reads at full speed. */
  onWarm?: () => void;
  /** Told of a thread that failed with no task to fail (it is replaced); the server must not die of it. */
  onThreadError?: (err: unknown) => void;
}

/**
 * A worker thread that died takes its task with it: Piscina rejects the task with the thread's error
 * (ERR_WORKER_OUT_OF_MEMORY past the heap limit) or "worker exited with code N". Both become catalogued
 * codes, so the job runner can retry the job once and then fail it with its reason.
 */
function threadFailure(err: unknown): unknown {
  const e = err as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return {
      code: 'OUT_OF_MEMORY',
      message: `the worker thread reading the document ran out of memory (setting worker_heap_mb): ${message}`,
    };
  }
  if (/^worker exited with code/i.test(message))
    return { code: 'WORKER_DIED', message: `the worker thread reading the document stopped (${message})` };
  return err;
}

/**
 * Why a shared read failed: when one reader's thread dies, the other stops too ("the second reader of the
 * PDF stopped", or aborted), and the job must fail (or retry) for the thread's death, not for the echo.
 */
function rootCause(errors: unknown[]): unknown {
  const code = (e: unknown) => (e as { code?: unknown } | null)?.code;
  const name = (e: unknown) => (e as { name?: unknown } | null)?.name;
  return (
    errors.find((e) => code(e) === 'OUT_OF_MEMORY' || code(e) === 'WORKER_DIED') ??
    errors.find(
      (e) =>
        name(e) !== 'AbortError' &&
        !/second reader of the PDF stopped/.test(String((e as { message?: unknown })?.message)),
    ) ??
    errors[0]
  );
}

/**
 * The smallest V8 heap limit at which V8 lets the old generation grow 4x between full collections (on
 * 64-bit builds without pointer compression, as Node's are; V8's heap-controller.cc); 1.4x at 512 MB.
 */
const FULL_SPEED_HEAP_MB = 2048;

/** The Piscina pool running workers/index.ts (built to dist/worker.js, or out/main/worker.js in Electron). */
export function createTaskPool(workerFile: string, threads: number, opts: TaskPoolOptions = {}): TaskPool {
  const size = threads > 0 ? threads : Math.max(1, availableParallelism());
  const heapBudgetMb = opts.workerHeapMb ?? JOB_LIMIT_DEFAULTS.workerHeapMb;
  const workerData: WorkerSettings = {
    warmUpRounds: opts.warmUpRounds ?? 0,
    warmUpChannel: `lectern:warm-up:${randomUUID()}`,
    limits: opts.limits ?? DEFAULT_LIMITS,
    heapBudgetMb,
    ...(opts.ocrLanguagesDir ? { ocrLanguagesDir: opts.ocrLanguagesDir } : {}),
  };
  // All threads start with the pool and stay: a thread start plus pdf.js load costs about a second.
  // Atomics off: with them, an idle thread sleeps in Atomics.wait and its event loop stands still, so
  // nothing it starts on its own (loading pdf.js, the warm-up) would run before its first task.
  // The heap limit makes a thread that runs out of memory fail alone (its task rejects, a new thread
  // starts); buffers outside the heap (inflated streams, canvases) are bounded by the document limits.
  // Documents are held to the budget by the heap guard; V8's own limit is at least FULL_SPEED_HEAP_MB,
  // below which V8 collects far more often (see heap-guard.ts).
  const pool = new Piscina({
    filename: workerFile,
    minThreads: size,
    maxThreads: size,
    workerData,
    atomics: 'disabled',
    resourceLimits: { maxOldGenerationSizeMb: Math.max(heapBudgetMb, FULL_SPEED_HEAP_MB) },
  });
  // Piscina emits 'error' for a thread that fails between tasks (out of memory while warming up, say); with
  // no listener that would be an uncaught exception in the server.
  pool.on('error', (err: unknown) => opts.onThreadError?.(err));
  const warm = new Set<number>();
  const warmUp = new BroadcastChannel(workerData.warmUpChannel);
  warmUp.unref();
  warmUp.onmessage = (event: unknown) => {
    warm.add((event as { data: WarmUpMessage }).data.threadId);
    if (warm.size < size) return;
    warmUp.close();
    opts.onWarm?.();
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

  function run<K extends keyof TaskMap>(
    name: K,
    input: TaskMap[K]['input'],
    signal?: AbortSignal,
  ): Promise<TaskMap[K]['output']> {
    return counted(pool.run(input, { name, signal }) as Promise<TaskMap[K]['output']>).catch((err: unknown) => {
      throw threadFailure(err);
    });
  }

  /** Runs a task that reports progress on a MessagePort of its own. */
  async function runWithProgress<K extends 'extract' | 'extractPdfLead' | 'readPdfShare'>(
    name: K,
    input: Omit<TaskMap[K]['input'], 'progressPort'>,
    signal: AbortSignal,
    onProgress: (p: ProgressMessage) => void,
    transfer: MessagePort[] = [],
  ): Promise<TaskMap[K]['output']> {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', onProgress);
    try {
      const withPort = { ...input, progressPort: port2 as MessagePort };
      return (await counted(
        pool.run(withPort, { name, transferList: [port2, ...transfer], signal }),
      )) as TaskMap[K]['output'];
    } catch (err) {
      throw threadFailure(err);
    } finally {
      port1.close();
    }
  }

  /**
   * Two idle threads read a PDF together (readPdfShare decides from its page count whether the second
   * one reads anything); on a busy pool one thread reads it, as splitting would only add work.
   */
  async function extractPdfInParallel(
    input: Omit<ExtractTaskInput, 'progressPort'>,
    signal: AbortSignal,
    onProgress: (p: ProgressMessage) => void,
  ) {
    if (size - running < 2) return runWithProgress('extract', input, signal, onProgress);
    // One failing reader stops the other rather than leaving it to wait or finish for nothing.
    const group = new AbortController();
    const stop = () => group.abort();
    signal.addEventListener('abort', stop, { once: true });
    const done = [0, 0];
    const progress =
      (i: number) =>
      ({ pagesDone, totalPages }: ProgressMessage) => {
        done[i] = pagesDone;
        onProgress({ pagesDone: (done[0] ?? 0) + (done[1] ?? 0), totalPages });
      };
    const { port1: helperPort, port2: leadPort } = new MessageChannel();
    const nextRun = new Int32Array(new SharedArrayBuffer(4));
    const settle = <T>(work: Promise<T>): Promise<T> =>
      work.catch((err: unknown) => {
        stop();
        throw err;
      });
    try {
      const [lead, helper] = await Promise.allSettled([
        settle(
          runWithProgress('extractPdfLead', { ...input, helperPort, nextRun }, group.signal, progress(0), [helperPort]),
        ),
        settle(
          runWithProgress(
            'readPdfShare',
            { path: input.path, ocr: input.ocr, leadPort, nextRun },
            group.signal,
            progress(1),
            [leadPort],
          ),
        ),
      ]);
      if (lead.status === 'fulfilled' && helper.status === 'fulfilled') return lead.value;
      throw rootCause([lead, helper].flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])));
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  return {
    threads: size,
    warmThreads: () => Math.min(size, warm.size),
    running: () => running,
    extract(input, { signal, onProgress }) {
      if (input.format === 'pdf' && size > 1) return extractPdfInParallel(input, signal, onProgress);
      return runWithProgress('extract', input, signal, onProgress);
    },
    chunk: (input) => run('chunk', input),
    renderPage: (input, signal) => run('renderPage', input, signal),
    ocrPage: (input, signal) => run('ocrPage', input, signal),
    embed: (input, signal) => run('embed', input, signal),
    readablePage: (input, signal) => run('readablePage', input, signal),
    async close() {
      warmUp.close();
      await pool.destroy();
    },
  };
}

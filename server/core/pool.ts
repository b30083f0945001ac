import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ChunkTaskInput, ExtractTaskInput, ProgressMessage, TaskMap } from './tasks.js';

export interface TaskPool {
  readonly threads: number;
  extract(
    input: Omit<ExtractTaskInput, 'progressPort'>,
    opts: { signal: AbortSignal; onProgress: (p: ProgressMessage) => void },
  ): Promise<TaskMap['extract']['output']>;
  chunk(input: ChunkTaskInput): Promise<TaskMap['chunk']['output']>;
  close(): Promise<void>;
}

/** The Piscina pool running workers/index.ts (built to dist/worker.js, or out/main/worker.js in Electron). */
export function createTaskPool(workerFile: string, threads: number): TaskPool {
  const size = threads > 0 ? threads : Math.max(1, availableParallelism());
  const pool = new Piscina({ filename: workerFile, minThreads: 1, maxThreads: size, idleTimeout: 60_000 });
  return {
    threads: size,
    async extract(input, { signal, onProgress }) {
      const { port1, port2 } = new MessageChannel();
      port1.on('message', (m: ProgressMessage) => onProgress(m));
      try {
        const task: ExtractTaskInput = { ...input, progressPort: port2 };
        return (await pool.run(task, { name: 'extract', transferList: [port2], signal })) as TaskMap['extract']['output'];
      } finally {
        port1.close();
      }
    },
    async chunk(input) {
      return (await pool.run(input, { name: 'chunk' })) as TaskMap['chunk']['output'];
    },
    async close() {
      await pool.destroy();
    },
  };
}

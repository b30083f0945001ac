import type { Logger } from 'pino';
import { documentLimitsOf } from './config/document-limits.js';
import { languagesDirOf } from './core/ocr/ocr-languages.js';
import { createTaskPool, type TaskPool } from './core/pool.js';
import type { Settings } from './schemas/settings.js';

/** The worker pool the settings describe: an API node's and a worker node's are the same. */
export function createSettingsPool(workerFile: string, settings: Settings, log: Logger): TaskPool {
  return createTaskPool(workerFile, settings.workers, {
    warmUpRounds: settings.warm_up_rounds,
    limits: documentLimitsOf(settings),
    workerHeapMb: settings.worker_heap_mb,
    ocrLanguagesDir: languagesDirOf(settings.data_dir),
    onThreadError: (err) => log.error({ err }, 'a worker thread failed between tasks; it was replaced'),
    // Whoever times a node (an operator, a benchmark) knows from this line when it reads at full speed.
    onWarm: () => log.info('worker threads warm'),
  });
}

/**
 * The OCR engine of one thread: a tesseract.js worker per language, created on first use and reused for every
 * page after (a worker costs ~1 s to start and ~100 MB of memory). Language data comes from installed npm
 * packages (`@tesseract.js-data/<lang>`) with a local `langPath`: without it tesseract.js downloads the data,
 * which offline means a crash (or a hang once an errorHandler is set).
 */
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

import { assertLanguageInstalled, DEFAULT_OCR_LANG, ocrError } from './ocr-languages.js';

export { assertLanguageInstalled, DEFAULT_OCR_LANG, installedLanguages, languageDataPath, type OcrError } from './ocr-languages.js';

export interface OcrEngine {
  lang: string;
  worker: Worker;
}

/**
 * One engine per language per thread. Module-level state is deliberate here: this module runs inside a pool
 * worker thread, whose whole life is "take OCR tasks", and the engine must outlive any one task. Holding the
 * promise (not the worker) lets concurrent first calls share one start-up.
 */
const engines = new Map<string, Promise<OcrEngine>>();

export function getOcrEngine(lang: string = DEFAULT_OCR_LANG): Promise<OcrEngine> {
  let engine = engines.get(lang);
  if (!engine) {
    engine = startEngine(lang);
    engines.set(lang, engine);
    // A failed start must not stick: the next task retries instead of getting the same rejection forever.
    engine.catch(() => engines.delete(lang));
  }
  return engine;
}

async function startEngine(lang: string): Promise<OcrEngine> {
  const langPath = assertLanguageInstalled(lang);
  let lastError: unknown;
  const worker = await createWorker(lang, OEM.LSTM_ONLY, {
    langPath,
    gzip: true,
    // No cache: by default tesseract.js writes the unpacked data to a cache file (in the working directory
    // or cachePath) and from then on reads that file *before* langPath. The data would then no longer come
    // from the installed package (an upgraded package, or a file another process or user left in a shared
    // temp folder, would be silently ignored or used), and two threads starting at once race on a file
    // written in place. Unpacking the 2.9 MB package file costs ~20 ms per engine, once per thread.
    cacheMethod: 'none',
    // Without a handler tesseract.js throws from its own message listener and takes the thread down;
    // with one, the failing call still rejects, so only remember the cause for the message.
    errorHandler: (err: unknown) => {
      lastError = err;
    },
    logger: () => undefined,
  }).catch((err: unknown) => {
    throw ocrError('OCR_FAILED', `Could not start OCR for '${lang}': ${String(lastError ?? err)}`);
  });
  await worker.setParameters({
    tessedit_pageseg_mode: PSM.AUTO,
    // Keep the spacing tesseract sees between table columns instead of collapsing it to one space.
    preserve_interword_spaces: '1',
  });
  return { lang, worker };
}

/** Ends this thread's engines (for tests, benches and a pool's graceful shutdown). */
export async function terminateOcrEngines(): Promise<void> {
  const all = [...engines.values()];
  engines.clear();
  await Promise.all(all.map(async (e) => (await e.catch(() => null))?.worker.terminate()));
}

/**
 * The OCR engine of one thread: a tesseract.js worker per language (`eng`, `deu`), created on first
 * use and reused for every page after (a worker costs ~1 s to start and ~100 MB of memory). Each language's
 * model is read here from its installed file (the bundled package or the data folder, see
 * ocr-languages.ts) and handed to tesseract.js as data: its `langPath` names one folder for all languages,
 * and the languages of one job may live in two. Without data or a local path tesseract.js downloads the
 * model, which offline means a crash (or a hang once an errorHandler is set).
 * (tesseract.js 7 passed such in-memory models' bytes instead of their codes to tesseract's Init;
 * patches/tesseract.js+7.0.0.patch carries the upstream fix, naptha/tesseract.js#1052.)
 */
import { readFile } from 'node:fs/promises';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

import { assertLanguagesInstalled, DEFAULT_OCR_LANG, languageModelFile, ocrError } from './ocr-languages.js';

export {
  assertLanguagesInstalled,
  DEFAULT_OCR_LANG,
  installedLanguages,
  languageModelFile,
  type OcrError,
} from './ocr-languages.js';

export interface OcrEngine {
  lang: string;
  worker: Worker;
}

/**
 * One engine per language per thread (a job in several languages reads with each one's engine). Module-level
 * state is deliberate here: this module runs inside a pool worker thread, whose whole life is "take OCR
 * tasks", and the engine must outlive any one task. Holding the promise (not the worker) lets concurrent
 * first calls share one start-up.
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
  const codes = assertLanguagesInstalled(lang);
  // tesseract.js gunzips each model itself (it checks the gzip magic).
  const models = await Promise.all(
    codes.map(async (code) => {
      const file = languageModelFile(code);
      if (!file) throw ocrError('OCR_LANGUAGE_MISSING', `OCR language data for '${code}' is no longer installed`);
      return { code, data: new Uint8Array(await readFile(file)) };
    }),
  );
  let lastError: unknown;
  const worker = await createWorker(models, OEM.LSTM_ONLY, {
    // No cache: by default tesseract.js writes the unpacked data to a cache file (in the working directory
    // or cachePath) and from then on reads that file *before* the given data. The model would then no
    // longer come from the installed file (an upgraded one, or a file another process or user left in a
    // shared temp folder, would be silently ignored or used), and two threads starting at once race on a
    // file written in place. Unpacking the 2.9 MB English file costs ~20 ms per engine, once per thread.
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

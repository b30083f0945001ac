/**
 * The OCR engine of one thread: a tesseract.js worker per language, created on first use and reused for every
 * page after (a worker costs ~1 s to start and ~100 MB of memory). Language data comes from installed npm
 * packages (`@tesseract.js-data/<lang>`) with a local `langPath`: without it tesseract.js downloads the data,
 * which offline means a crash (or a hang once an errorHandler is set).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

const require = createRequire(import.meta.url);

/** Languages are English by default; a job may ask for another installed one. */
export const DEFAULT_OCR_LANG = 'eng';

export interface OcrEngine {
  lang: string;
  worker: Worker;
}

export type OcrError = Error & { code: 'OCR_LANGUAGE_MISSING' | 'OCR_FAILED' };

function ocrError(code: OcrError['code'], message: string): OcrError {
  return Object.assign(new Error(message), { code });
}

/**
 * The data packages ship two models: `4.0.0` (legacy + LSTM, 10.9 MB gzipped) and `4.0.0_best_int`
 * (LSTM only, 2.9 MB). We only run the LSTM engine, and the LSTM-only file loads faster and gives the same
 * text (measured on the scanned fixtures), so it is preferred when present.
 */
const DATA_DIRS = ['4.0.0_best_int', '4.0.0'] as const;

/** Folder holding `<lang>.traineddata.gz`, or null when the language's data package is not installed. */
export function languageDataPath(lang: string): string | null {
  if (!/^[a-z]{3}(_[a-z]+)?$/i.test(lang)) return null;
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`));
  } catch {
    return null;
  }
  for (const dir of DATA_DIRS) {
    const full = path.join(pkgDir, dir);
    try {
      require.resolve(path.join(full, `${lang}.traineddata.gz`));
      return full;
    } catch {
      // try the next layout
    }
  }
  return null;
}

/** Languages whose data packages are installed (each `@tesseract.js-data/*` package with a model file). */
export function installedLanguages(): string[] {
  const found = new Set<string>();
  for (const base of require.resolve.paths('@tesseract.js-data/eng') ?? []) {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(base, '@tesseract.js-data'));
    } catch {
      continue;
    }
    for (const name of names) if (languageDataPath(name)) found.add(name);
  }
  return [...found].sort();
}

/** Throws OCR_LANGUAGE_MISSING, naming what is installed, unless the language's data is present. */
export function assertLanguageInstalled(lang: string): string {
  const dir = languageDataPath(lang);
  if (dir) return dir;
  const have = installedLanguages();
  throw ocrError(
    'OCR_LANGUAGE_MISSING',
    `OCR language data for '${lang}' is not installed (installed: ${have.length ? have.join(', ') : 'none'}); ` +
      `add the npm package @tesseract.js-data/${lang}`,
  );
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
  // tesseract.js caches the unpacked data by default in the working directory; keep it out of the repo/app dir.
  const cachePath = path.join(os.tmpdir(), 'lectern-tessdata');
  mkdirSync(cachePath, { recursive: true });
  let lastError: unknown;
  const worker = await createWorker(lang, OEM.LSTM_ONLY, {
    langPath,
    gzip: true,
    cachePath,
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

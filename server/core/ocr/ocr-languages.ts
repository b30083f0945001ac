/**
 * Which OCR languages can be used: tesseract language data comes from installed npm packages
 * (`@tesseract.js-data/<lang>`), never from a download. Kept apart from the engine (tesseract.ts) so the HTTP
 * thread can check a job's language without loading tesseract.js.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { AppError } from '../errors.js';

const require = createRequire(import.meta.url);

/** Languages are English by default; a job may ask for another installed one. */
export const DEFAULT_OCR_LANG = 'eng';

export type OcrError = Error & { code: 'OCR_LANGUAGE_MISSING' | 'OCR_FAILED' };

export function ocrError(code: OcrError['code'], message: string): OcrError {
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
 * A job's or a request's `ocr_language` checked before any work starts: absent means English; language data
 * that is not installed answers 400 OCR_LANGUAGE_MISSING naming the installed languages, instead of a job
 * that fails later in a worker.
 */
export function ocrLanguageOption(raw: string | undefined): string {
  const lang = raw?.trim() || DEFAULT_OCR_LANG;
  if (languageDataPath(lang)) return lang;
  const installed = installedLanguages();
  throw new AppError(
    'OCR_LANGUAGE_MISSING',
    `OCR language data for '${lang}' is not installed (installed: ${installed.join(', ') || 'none'})`,
    { language: lang, installed },
  );
}

/**
 * Which OCR languages can be used. English ships with the app (the `@tesseract.js-data/eng` dependency);
 * every other language is an optional install into the data folder (`<data_dir>/ocr-languages/<code>.
 * traineddata.gz`, written by `lectern languages add`, see language-install.ts), so adding one needs no
 * rebuild and no npm. Nothing here downloads. Kept apart from the engine (tesseract.ts) so the HTTP thread
 * can check a job's languages without loading tesseract.js.
 *
 * A job may name several languages, tesseract's way (`eng+deu`): each page is then read with each language
 * and every word takes the best of its readings (see merge-readings.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { AppError } from '../errors.js';
import { BUNDLED_LANGUAGES, knownLanguageCodes, languageInfo } from '../language-catalog.js';

const require = createRequire(import.meta.url);

/** Languages are English by default; a job may ask for other installed ones. */
export const DEFAULT_OCR_LANG = 'eng';

/** At most this many languages per job: each is another model read for every line (tesseract slows down). */
export const MAX_LANGUAGES_PER_JOB = 4;

export type OcrError = Error & { code: 'OCR_LANGUAGE_MISSING' | 'OCR_FAILED'; details?: unknown };

export function ocrError(code: OcrError['code'], message: string, details?: unknown): OcrError {
  return Object.assign(new Error(message), { code, details });
}

/** Installed languages live in the data folder, one gzipped model per language with a note of its source. */
export function languagesDirOf(dataDir: string): string {
  return path.join(dataDir, 'ocr-languages');
}

export const modelFileName = (code: string): string => `${code}.traineddata.gz`;

/**
 * The data packages ship two models: `4.0.0` (legacy + LSTM, 10.9 MB gzipped for English) and
 * `4.0.0_best_int` (LSTM only, 2.9 MB). We only run the LSTM engine, and the LSTM-only file loads faster and
 * gives the same text (measured on the scanned fixtures), so it is preferred when present.
 */
export const PACKAGE_DATA_DIRS = ['4.0.0_best_int', '4.0.0'] as const;

/** A language code as tesseract spells one (`eng`, `chi_sim`): anything else never reaches a file path. */
const CODE = /^[a-z]{3}(_[a-z]{3,4})?$/;

/**
 * The languages folder of this thread. A worker thread is told it once, when its pool starts it
 * (`WorkerSettings.ocrLanguagesDir`); the HTTP thread always passes its server's folder explicitly,
 * since one process may run several servers (the tests do).
 */
let threadLanguagesDir: string | undefined;

export function setThreadLanguagesDir(dir: string | undefined): void {
  threadLanguagesDir = dir;
}

/** The bundled package's model file, or null. */
function bundledModel(code: string): string | null {
  if (!BUNDLED_LANGUAGES.includes(code)) return null;
  let pkgDir: string;
  try {
    pkgDir = path.dirname(require.resolve(`@tesseract.js-data/${code}/package.json`));
  } catch {
    return null;
  }
  for (const dir of PACKAGE_DATA_DIRS) {
    const file = path.join(pkgDir, dir, modelFileName(code));
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * The gzipped model file of one language, or null when it is not installed: the data folder's copy first
 * (a language added there wins over the bundled one, so English can be replaced too), then the bundled one.
 */
export function languageModelFile(code: string, dir: string | undefined = threadLanguagesDir): string | null {
  if (!CODE.test(code)) return null;
  if (dir) {
    const file = path.join(dir, modelFileName(code));
    if (existsSync(file)) return file;
  }
  return bundledModel(code);
}

/** Every installed language: the bundled ones and those in the data folder. */
export function installedLanguages(dir: string | undefined = threadLanguagesDir): string[] {
  const found = new Set(BUNDLED_LANGUAGES.filter((c) => bundledModel(c)));
  if (dir) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // no folder yet: nothing added
    }
    for (const name of names) {
      const code = name.endsWith('.traineddata.gz') ? name.slice(0, -'.traineddata.gz'.length) : '';
      if (CODE.test(code)) found.add(code);
    }
  }
  return [...found].sort();
}

/** `eng+deu` -> ['eng', 'deu'] (trimmed, no repeats); the caller judges the codes. */
export function splitLanguages(spec: string): string[] {
  return [...new Set(spec.split('+').map((s) => s.trim()))];
}

const addHint = (missing: readonly string[]): string => `lectern languages add ${missing.join(' ')}`;

/** Throws OCR_LANGUAGE_MISSING, naming what is installed and how to add the rest, unless all are installed. */
export function assertLanguagesInstalled(spec: string, dir: string | undefined = threadLanguagesDir): string[] {
  const codes = splitLanguages(spec);
  const missing = codes.filter((c) => !languageModelFile(c, dir));
  if (missing.length === 0) return codes;
  const installed = installedLanguages(dir);
  throw ocrError(
    'OCR_LANGUAGE_MISSING',
    `OCR language data for ${missing.map((c) => `'${c}'`).join(', ')} is not installed (installed: ${installed.join(', ') || 'none'}); add it with \`${addHint(missing)}\``,
    { language: spec, missing, installed, install: addHint(missing) },
  );
}

/**
 * A job's or a request's `ocr_language` checked before any work starts: absent means English. A code
 * Lectern does not know (or a malformed one) answers 400 OCR_LANGUAGE_UNKNOWN listing the known ones; a
 * known language that is not installed 409 OCR_LANGUAGE_MISSING saying how to add it, instead of a job
 * that fails later in a worker. Answers the spec normalised (`eng+deu`).
 */
export function ocrLanguageOption(raw: string | undefined, dir: string): string {
  const spec = raw?.trim() || DEFAULT_OCR_LANG;
  const codes = splitLanguages(spec);
  const known = knownLanguageCodes();
  const unknown = codes.filter((c) => !languageInfo(c) && !languageModelFile(c, dir));
  if (unknown.length > 0) {
    throw new AppError(
      'OCR_LANGUAGE_UNKNOWN',
      `unknown OCR language ${unknown.map((c) => `'${c}'`).join(', ')}: known languages are ${known.join(', ')}; join several with + (eng+deu)`,
      { language: spec, unknown, known },
    );
  }
  if (codes.length > MAX_LANGUAGES_PER_JOB) {
    throw new AppError(
      'VALIDATION_FAILED',
      `at most ${MAX_LANGUAGES_PER_JOB} OCR languages per job (asked ${codes.length})`,
      [{ field: 'ocr_language', value: spec }],
    );
  }
  try {
    assertLanguagesInstalled(spec, dir);
  } catch (err) {
    const e = err as OcrError;
    throw new AppError('OCR_LANGUAGE_MISSING', e.message, e.details);
  }
  return codes.join('+');
}

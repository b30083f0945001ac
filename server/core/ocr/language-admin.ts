/**
 * What `lectern languages` and the admin routes /ocr-languages do to a data folder's languages, in one
 * place: whichever process owns the folder (a server, or a command holding its lock) runs these, so the
 * answers and the refusals are the same either way.
 */
import path from 'node:path';

import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import { BUNDLED_LANGUAGES, LANGUAGE_CATALOG, knownLanguageCodes, languageInfo } from '../language-catalog.js';
import {
  installedNote,
  installFromPath,
  installFromRegistry,
  removeLanguage,
  type InstalledLanguageNote,
} from './language-install.js';
import { installedLanguages, languageModelFile, modelFileName } from './ocr-languages.js';

export interface LanguageRow {
  code: string;
  name: string;
  script: string;
  rtl: boolean;
  installed: boolean;
  /** Installed with the app (not from the data folder). */
  bundled: boolean;
  file: string | null;
  package: string | null;
  bytes: number | null;
  source: string | null;
  /** How to install it when it is not: the command, or the local way for a language not on the registry. */
  install: string | null;
}

export interface LanguageList {
  languages_dir: string;
  languages: LanguageRow[];
  /** Models in the folder under a code the catalogue does not list (a job may still name one). */
  other_installed: string[];
}

/** Every catalogue language and whether (and from where) it is installed. */
export async function languageList(dir: string): Promise<LanguageList> {
  const installed = new Set(installedLanguages(dir));
  const languages = await Promise.all(
    LANGUAGE_CATALOG.map(async (l): Promise<LanguageRow> => {
      const file = languageModelFile(l.code, dir);
      const noteOf = file && !BUNDLED_LANGUAGES.includes(l.code) ? await installedNote(dir, l.code) : null;
      return {
        code: l.code,
        name: l.name,
        script: l.script,
        rtl: l.rtl,
        installed: installed.has(l.code),
        bundled: BUNDLED_LANGUAGES.includes(l.code) && !file?.startsWith(dir),
        file,
        package: noteOf?.package ?? null,
        bytes: noteOf?.bytes ?? null,
        source: noteOf?.source ?? null,
        install: installed.has(l.code)
          ? null
          : l.npm === false
            ? (l.localHint ?? null)
            : `lectern languages add ${l.code}`,
      };
    }),
  );
  return { languages_dir: dir, languages, other_installed: [...installed].filter((c) => !languageInfo(c)) };
}

export function unknownLanguage(codes: string[]): AppError {
  const known = knownLanguageCodes();
  return new AppError('OCR_LANGUAGE_UNKNOWN', `unknown OCR language ${codes.join(', ')}`, { unknown: codes, known });
}

export type AddedLanguage = InstalledLanguageNote | { code: string; already: true };

export interface AddLanguageOptions {
  code: string;
  dir: string;
  net: GuardedFetch;
  /** A local copy (package folder or .tgz, or a .traineddata[.gz] file), already judged readable by the caller. */
  from?: string;
  /** The npm registry's base URL (default registry.npmjs.org). */
  registry?: string;
  /** Install again even when installed. */
  force?: boolean;
  signal?: AbortSignal;
}

/**
 * Installs one catalogue language: `{ already: true }` when it is installed and neither `force` nor
 * `from` asks again; LANGUAGE_NOT_ON_REGISTRY when only a local copy can give it.
 */
export async function addLanguage(opts: AddLanguageOptions): Promise<AddedLanguage> {
  const { code, dir } = opts;
  const info = languageInfo(code);
  if (!info) throw unknownLanguage([code]);
  if (!opts.force && !opts.from && languageModelFile(code, dir)) return { code, already: true };
  if (!opts.from && info.npm === false) {
    throw new AppError('LANGUAGE_NOT_ON_REGISTRY', `${info.name} (${code}) is not on the npm registry`, {
      code,
      install: info.localHint ?? null,
    });
  }
  if (opts.from) return installFromPath(code, dir, opts.from);
  return installFromRegistry({ code, dir, net: opts.net, registry: opts.registry, signal: opts.signal });
}

/**
 * Removes a language added to the data folder; false when none was there (the bundled English stays). A
 * code that is not a tesseract code never reaches a file path.
 */
export async function removeAddedLanguage(dir: string, code: string): Promise<boolean> {
  const file = languageModelFile(code, dir);
  if (!file || file !== path.join(dir, modelFileName(code))) return false;
  return removeLanguage(dir, code);
}

/**
 * The OCR languages Lectern knows how to install: each is the npm package `@tesseract.js-data/<code>`
 * (tesseract's own LSTM models, repackaged by the tesseract.js authors), checked on the registry at the
 * version pinned here. English ships with the app; the others are optional installs into the data folder
 * (`lectern languages add CODE`). The script and direction matter to reading order (see bidi-order.ts).
 */
export interface OcrLanguageInfo {
  /** Tesseract's code, also the package name's last part. */
  code: string;
  name: string;
  /** ISO 639-3 code of the language as the detector names it (macrolanguage where franc names a member). */
  iso639_3: string;
  script: 'Latin' | 'Cyrillic' | 'Arabic' | 'Hebrew' | 'Han' | 'Japanese' | 'Hangul';
  rtl: boolean;
  /**
   * false: not on the npm registry (checked: `@tesseract.js-data/rus` answers 404), so it is installed from
   * a local model file: `localHint` says where one comes from.
   */
  npm?: false;
  localHint?: string;
}

/** Package version of every language (all of `@tesseract.js-data` is 1.0.0 on the registry). */
export const LANGUAGE_PACKAGE_VERSION = '1.0.0';

export const LANGUAGE_CATALOG: readonly OcrLanguageInfo[] = [
  { code: 'eng', name: 'English', iso639_3: 'eng', script: 'Latin', rtl: false },
  { code: 'deu', name: 'German', iso639_3: 'deu', script: 'Latin', rtl: false },
  { code: 'fra', name: 'French', iso639_3: 'fra', script: 'Latin', rtl: false },
  { code: 'spa', name: 'Spanish', iso639_3: 'spa', script: 'Latin', rtl: false },
  { code: 'ita', name: 'Italian', iso639_3: 'ita', script: 'Latin', rtl: false },
  { code: 'por', name: 'Portuguese', iso639_3: 'por', script: 'Latin', rtl: false },
  { code: 'nld', name: 'Dutch', iso639_3: 'nld', script: 'Latin', rtl: false },
  { code: 'pol', name: 'Polish', iso639_3: 'pol', script: 'Latin', rtl: false },
  {
    code: 'rus',
    name: 'Russian',
    iso639_3: 'rus',
    script: 'Cyrillic',
    rtl: false,
    npm: false,
    localHint:
      'apt-get install tesseract-ocr-rus, then lectern languages add rus --from /usr/share/tesseract-ocr/5/tessdata/rus.traineddata',
  },
  { code: 'ukr', name: 'Ukrainian', iso639_3: 'ukr', script: 'Cyrillic', rtl: false },
  { code: 'ara', name: 'Arabic', iso639_3: 'ara', script: 'Arabic', rtl: true },
  { code: 'heb', name: 'Hebrew', iso639_3: 'heb', script: 'Hebrew', rtl: true },
  { code: 'chi_sim', name: 'Chinese (simplified)', iso639_3: 'zho', script: 'Han', rtl: false },
  { code: 'chi_tra', name: 'Chinese (traditional)', iso639_3: 'zho', script: 'Han', rtl: false },
  { code: 'jpn', name: 'Japanese', iso639_3: 'jpn', script: 'Japanese', rtl: false },
  { code: 'kor', name: 'Korean', iso639_3: 'kor', script: 'Hangul', rtl: false },
];

/** Languages shipped inside the app (a dependency in package.json), found in node_modules. */
export const BUNDLED_LANGUAGES: readonly string[] = ['eng'];

export function languageInfo(code: string): OcrLanguageInfo | undefined {
  return LANGUAGE_CATALOG.find((l) => l.code === code);
}

export const knownLanguageCodes = (): string[] => LANGUAGE_CATALOG.map((l) => l.code);

/**
 * Stems in a document's own language for both full-text indexes. Each index stems English alone (FTS5's
 * Porter, PostgreSQL's `english` configuration), so a German `Häusern` was not found by `Haus`, nor French
 * `chevaux` by `cheval`. A chunk written in a language Snowball has is indexed with the Snowball stem of each
 * word beside its words (appended, so the words themselves are read as before), and a query's words are
 * joined by their stems in each language the searched collection holds: `Haus` finds `Häusern` through the
 * stem `haus` both carry. The stems are made here, in JavaScript, for both stores, so they agree word for word.
 *
 * English is left to each index's own stemmer (no stems beside it), so English text and queries give the
 * tokens, and the scores, they always had. The stemmers are the Snowball project's algorithms compiled to
 * JavaScript (@orama/stemmers); only those are used, not the package's other stemmers.
 */
import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as armenian } from '@orama/stemmers/armenian';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as indonesian } from '@orama/stemmers/indonesian';
import { stemmer as irish } from '@orama/stemmers/irish';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as lithuanian } from '@orama/stemmers/lithuanian';
import { stemmer as nepali } from '@orama/stemmers/nepali';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as serbian } from '@orama/stemmers/serbian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as tamil } from '@orama/stemmers/tamil';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { foldDiacritics, fullTextWords } from './full-text-words.js';

type Stemmer = (word: string) => string;

/** Snowball's stemmers by the ISO 639-3 code a document's language is detected as (extract/detect-language.ts). */
const STEMMERS: Readonly<Record<string, Stemmer>> = {
  ara: arabic,
  hye: armenian,
  dan: danish,
  nld: dutch,
  fin: finnish,
  fra: french,
  deu: german,
  ell: greek,
  hun: hungarian,
  ind: indonesian,
  gle: irish,
  ita: italian,
  lit: lithuanian,
  nep: nepali,
  nor: norwegian,
  nob: norwegian,
  nno: norwegian,
  por: portuguese,
  ron: romanian,
  rus: russian,
  srp: serbian,
  spa: spanish,
  swe: swedish,
  tam: tamil,
  tur: turkish,
};

/** The languages (ISO 639-3) whose text is indexed with stems; any other is indexed by its words alone. */
export const STEMMED_LANGUAGES: readonly string[] = Object.keys(STEMMERS);

const stemmerOf = (language: string | null | undefined): Stemmer | undefined =>
  language ? STEMMERS[language] : undefined;

/** A run of letters, marks and digits: a token to either index's tokenizer (an elided `l'` is a word of its own). */
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;
const LETTER = /\p{L}/u;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * The stems of the words of `text` in these languages that differ from their word (a word that is its own
 * stem is already indexed as itself), one per occurrence so that a word's count still weighs in BM25; folded
 * as the words are, so that both stores read them alike.
 */
export function stemsOf(text: string, languages: readonly (string | null)[]): string[] {
  const stemmers = [...new Set(languages.map(stemmerOf).filter((s): s is Stemmer => s !== undefined))];
  if (stemmers.length === 0) return [];
  // Words repeat: each distinct one is stemmed (and folded) once.
  const known = new Map<string, readonly string[]>();
  const out: string[] = [];
  for (const [token] of text.toLowerCase().matchAll(TOKEN)) {
    let stems = known.get(token);
    if (!stems) {
      stems = LETTER.test(token) ? stemsOfWord(token, stemmers) : [];
      known.set(token, stems);
    }
    out.push(...stems);
  }
  return out;
}

const fold = (word: string): string => (ASCII_ONLY.test(word) ? word : foldDiacritics(word));

function stemsOfWord(token: string, stemmers: readonly Stemmer[]): string[] {
  const seen = new Set([fold(token)]);
  const stems: string[] = [];
  for (const stem of stemmers) {
    const s = fold(stem(token));
    if (s && !seen.has(s)) {
      seen.add(s);
      stems.push(s);
    }
  }
  return stems;
}

/** Words with their stems after them (nothing added when there are none). */
export const withStems = (words: string, stems: readonly string[]): string =>
  stems.length ? `${words} ${stems.join(' ')}` : words;

/** The text a chunk written in `language` (ISO 639-3, null: not known) is indexed as, on either store. */
export const chunkFullText = (text: string, language: string | null | undefined): string =>
  withStems(fullTextWords(text), stemsOf(text, [language ?? null]));

/** The text a query is matched as, over a collection holding text in these languages. */
export const queryFullText = (query: string, languages: readonly (string | null)[]): string =>
  withStems(fullTextWords(query), stemsOf(query, languages));

/**
 * The text both full-text indexes (SQLite FTS5, PostgreSQL tsvector) are given, for the stored text and for
 * the query alike, so that the two stores find the same words.
 *
 * Neither index can tell where a word ends in a script written without spaces: FTS5's unicode61 and
 * PostgreSQL's parser keep a whole run of Chinese or Japanese characters as one token, so a word inside a
 * sentence was never found. ICU's word breaks (`Intl.Segmenter`, with its Chinese, Japanese and Thai
 * dictionaries) cut that text into words, and the words are handed on separated by spaces.
 *
 * On a PostgreSQL without a locale (initdb --no-locale, the usual case in containers) its parser takes every
 * non-ASCII character for a letter, so „Häuser“ or "方法。" kept their quotes and stops inside the word: what
 * is no word and not ASCII (quotes, dashes, CJK punctuation, no-break spaces) becomes a space. ASCII
 * punctuation stays where it was, so PostgreSQL still reads "well-known", "3.14" or an address as before.
 * Latin diacritics are folded (ä → a, é → e), as FTS5's `remove_diacritics 2` does, so that "Hauser" finds
 * "Häuser" on both stores.
 *
 * ASCII text goes through unchanged: English is tokenized and stemmed by each index as before (and an index
 * written before these words existed holds the same tokens for it).
 */

/** A fixed locale: the words of a text must not depend on the machine's language settings. */
const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** Combining marks (U+0300–U+036F) after a Latin letter, once the text is decomposed (NFD). */
const LATIN_DIACRITICS = /(\p{Script=Latin})[\u0300-\u036f]+/gu;

/** The text of `text` as the full-text indexes take it: its words apart, its non-ASCII non-words spaces (ASCII text as it is). */
export function fullTextWords(text: string): string {
  if (ASCII_ONLY.test(text)) return text;
  let out = '';
  let afterWord = false;
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    // Two words with nothing between them were one run to the index (Chinese, Japanese, Thai): a space parts them.
    if (isWordLike) out += afterWord ? ` ${segment}` : segment;
    else out += ASCII_ONLY.test(segment) ? segment : ' ';
    afterWord = Boolean(isWordLike);
  }
  return foldDiacritics(out);
}

/** `text` with the diacritics of its Latin letters taken off (ä → a, é → e), as FTS5's `remove_diacritics 2` does. */
export const foldDiacritics = (text: string): string =>
  text.normalize('NFD').replace(LATIN_DIACRITICS, '$1').normalize('NFC');

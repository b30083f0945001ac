/**
 * Token counting for chunk sizing.
 *
 * This approximates a WordPiece/BPE tokenizer instead of running one: the counts only decide where chunks
 * are cut, so being off by a few percent moves a boundary by a sentence, which costs nothing, while a real
 * tokenizer would tie chunking to one embedding model's vocabulary (and its load time) before that model is
 * even chosen. Targets should leave some headroom below the model's hard limit for that reason.
 *
 * Rules: letter runs of up to 8 characters are one token, longer ones ceil(len / 6) (sub-word pieces);
 * digit runs count one token per 3 digits; every other visible character (punctuation, symbols, CJK
 * ideographs and kana) is one token; whitespace is free. Because whitespace is free and never part of a
 * run, the count of two texts joined by whitespace is exactly the sum of their counts, which the chunker
 * relies on to size chunks without recounting them.
 */
import { sentenceStarts, trimmedEnd, trimmedStart, wordStarts } from './sentences.js';

const SPACE = 0;
const LETTER = 1;
const DIGIT = 2;
const SINGLE = 3; // one token per character

const ASCII_CLASS = (() => {
  const table = new Uint8Array(128).fill(SINGLE);
  for (const c of ' \t\n\r\f\v') table[c.charCodeAt(0)] = SPACE;
  for (let c = 48; c <= 57; c++) table[c] = DIGIT;
  for (let c = 65; c <= 90; c++) table[c] = LETTER;
  for (let c = 97; c <= 122; c++) table[c] = LETTER;
  return table;
})();

const SPACE_RE = /\s/u;
const IDEOGRAPHIC_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const LETTER_RE = /[\p{L}\p{M}]/u;
const DIGIT_RE = /\p{Nd}/u;

function classOf(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp]!;
  // Latin-1 and Latin Extended letters (most European text) without a regex.
  if (cp >= 0xc0 && cp <= 0x24f && cp !== 0xd7 && cp !== 0xf7) return LETTER;
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3040 && cp <= 0x30ff)) return SINGLE;
  const ch = String.fromCodePoint(cp);
  if (SPACE_RE.test(ch)) return SPACE;
  if (IDEOGRAPHIC_RE.test(ch)) return SINGLE;
  if (LETTER_RE.test(ch)) return LETTER;
  if (DIGIT_RE.test(ch)) return DIGIT;
  return SINGLE;
}

function runCost(cls: number, len: number): number {
  if (len === 0) return 0;
  if (cls === LETTER) return len <= 8 ? 1 : Math.ceil(len / 6);
  if (cls === DIGIT) return Math.ceil(len / 3);
  return 0;
}

/**
 * Walks the atoms of `text` (maximal letter runs, maximal digit runs, single other characters; whitespace
 * skipped), reporting each one's code-unit range, class, length in code points and cost.
 */
function scanAtoms(text: string, visit: (start: number, end: number, cls: number, len: number) => void): void {
  let runStart = 0;
  let runCls = SPACE;
  let runLen = 0;
  for (let i = 0; i < text.length; i++) {
    const start = i;
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      cp = text.codePointAt(i)!;
      i++;
    }
    const cls = classOf(cp);
    if (cls === runCls && (cls === LETTER || cls === DIGIT)) {
      runLen++;
      continue;
    }
    if (runLen > 0) visit(runStart, start, runCls, runLen);
    if (cls === LETTER || cls === DIGIT) {
      runStart = start;
      runCls = cls;
      runLen = 1;
    } else {
      if (cls === SINGLE) visit(start, i + 1, SINGLE, 1);
      runCls = SPACE;
      runLen = 0;
    }
  }
  if (runLen > 0) visit(runStart, text.length, runCls, runLen);
}

/** Approximate number of model tokens in `text` (see the module comment for the rules). */
export function countTokens(text: string): number {
  // Same walk as scanAtoms, inlined: this runs over every character of every document.
  let tokens = 0;
  let runCls = SPACE;
  let runLen = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      cp = text.codePointAt(i)!;
      i++;
    }
    const cls = cp < 128 ? ASCII_CLASS[cp]! : classOf(cp);
    if (cls === runCls && cls !== SPACE) {
      runLen++;
    } else if (cls === LETTER || cls === DIGIT) {
      tokens += runCost(runCls, runLen);
      runCls = cls;
      runLen = 1;
    } else {
      tokens += runCost(runCls, runLen) + (cls === SINGLE ? 1 : 0);
      runCls = SPACE;
      runLen = 0;
    }
  }
  return tokens + runCost(runCls, runLen);
}

/**
 * Cuts a string that has no whitespace into fragments of at most `max` tokens each, between atoms, and
 * inside a letter or digit run only when the run alone is over `max`. Concatenated, the fragments give
 * back `text`. Used as the last resort for over-long "words" (URLs, base64, minified code).
 */
export function splitUnbroken(text: string, max: number): string[] {
  const limit = Math.max(1, Math.floor(max));
  const out: string[] = [];
  let fragStart = 0;
  let fragCost = 0;
  scanAtoms(text, (start, end, cls, len) => {
    const cost = cls === SINGLE ? 1 : runCost(cls, len);
    if (cost <= limit) {
      if (fragCost + cost > limit && start > fragStart) {
        out.push(text.slice(fragStart, start));
        fragStart = start;
        fragCost = 0;
      }
      fragCost += cost;
      return;
    }
    if (start > fragStart) out.push(text.slice(fragStart, start));
    // Slices that each cost exactly `limit`: 6 letters (8 when limit is 1) or 3 digits per token.
    const per = cls === DIGIT ? 3 * limit : limit === 1 ? 8 : 6 * limit;
    const chars = Array.from(text.slice(start, end));
    let offset = start;
    for (let k = 0; k < chars.length; k += per) {
      const slice = chars.slice(k, k + per).join('');
      if (k + per < chars.length) out.push(slice);
      else {
        fragStart = offset;
        fragCost = runCost(cls, Math.min(per, chars.length - k));
      }
      offset += slice.length;
    }
  });
  if (fragStart < text.length) out.push(text.slice(fragStart));
  return out;
}

/**
 * Offset where the tail of `text` worth at most `n` tokens starts (text.length when nothing fits).
 * Whole sentences are preferred; when the whole sentences that fit make up less than half of `n` (a long
 * last sentence), whole words are taken instead so the overlap still carries some context.
 */
export function tailStart(text: string, n: number): number {
  if (n <= 0) return text.length;
  // Look at a window of the end first (a token averages ~5 characters). Boundaries inside the window
  // are the same as in the whole text, except that its first word or sentence may be cut: when the tail
  // reaches back to it, do the whole text.
  const from = Math.max(0, text.length - (16 * n + 64));
  if (from > 0) {
    const start = tailStartIn(text, from, n);
    const firstWord = trimmedStart(text, from);
    if (start > firstWord && start < text.length) return start;
  }
  return tailStartIn(text, 0, n);
}

function tailStartIn(text: string, from: number, n: number): number {
  const window = from > 0 ? text.slice(from) : text;
  const end = trimmedEnd(window, 0, window.length);
  if (end === 0) return text.length;
  const starts = sentenceStarts(window);
  let tokens = 0;
  let best = window.length;
  let sentenceEnd = end;
  for (let k = starts.length - 1; k >= 0; k--) {
    const start = starts[k]!;
    const cost = countTokens(window.slice(start, sentenceEnd));
    if (tokens + cost > n) break;
    tokens += cost;
    best = start;
    sentenceEnd = start;
  }
  if (best === window.length || tokens * 2 < n) {
    const words = wordStarts(window);
    let wordTokens = 0;
    let wordEnd = end;
    for (let k = words.length - 1; k >= 0; k--) {
      const start = words[k]!;
      const cost = countTokens(window.slice(start, wordEnd));
      if (wordTokens + cost > n) break;
      wordTokens += cost;
      if (wordTokens > tokens) best = start;
      wordEnd = start;
    }
  }
  return from + best;
}

/** The last `n` tokens' worth of `text`, whole sentences where possible (see tailStart). */
export function tailByTokens(text: string, n: number): string {
  return text.slice(tailStart(text, n)).trimEnd();
}

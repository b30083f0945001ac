/**
 * Character clean-up of extracted text and the joining of wrapped lines (hyphenation).
 */

const LIGATURES: Record<string, string> = {
  '\uFB00': 'ff',
  '\uFB01': 'fi',
  '\uFB02': 'fl',
  '\uFB03': 'ffi',
  '\uFB04': 'ffl',
  '\uFB05': 'st',
  '\uFB06': 'st',
};

/**
 * Control codes reach the text when a font (typically a dvips Type 3 bitmap font) has no ToUnicode
 * map and pdf.js falls back to the raw codes. TeX documents set such fonts in the T1 (Cork)
 * encoding, whose slots 0x0D-0x1F hold quotes, dashes and the f-ligatures; the accent slots
 * below are dropped, since the accent cannot be put back on its letter.
 */
const T1_CONTROLS: Record<number, string> = {
  0x0d: '\u201A',
  0x0e: '\u2039',
  0x0f: '\u203A',
  0x10: '\u201C',
  0x11: '\u201D',
  0x12: '\u201E',
  0x13: '\u00AB',
  0x14: '\u00BB',
  0x15: '\u2013',
  0x16: '\u2014',
  0x19: '\u0131',
  0x1a: '\u0237',
  0x1b: 'ff',
  0x1c: 'fi',
  0x1d: 'fl',
  0x1e: 'ffi',
  0x1f: 'ffl',
};

// Everything that needs a look: non-ASCII or control characters. Pure printable ASCII skips it all.
const NEEDS_WORK_RE = /[^\x20-\x7E]/;
const ODD_SPACE_RE = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\t\r\n\f\v]/g;
const ZERO_WIDTH_RE = /[\u200B-\u200D\u2060\uFEFF\u180E]/g;
const LIGATURE_RE = /[\uFB00-\uFB06]/g;
const CONTROL_RE = /[\x00-\x1F\x7F-\x9F]/g;
// Glyph pieces of Adobe's Symbol font (big brackets, integral parts): private-use, never text.
const SYMBOL_PIECES_RE = /[\uF8E5-\uF8FF]/g;
/**
 * Compatibility forms that NFKC may fold without changing meaning for search: presentation forms
 * (Hebrew, Arabic), half/full-width forms and the mathematical alphanumerics (italic x -> x).
 * Superscripts, fractions and the like are left alone: NFKC would turn "x²" into "x2".
 */
const NFKC_SAFE_RE = /[\uFB13-\uFDFF\uFE70-\uFEFF\uFF00-\uFFEF]|\uD835[\uDC00-\uDFFF]/g;

/**
 * Cleans one text item: ligatures expanded, odd spaces to plain spaces, zero-width characters
 * removed, raw control codes mapped (t1Controls) or dropped, safe NFKC folds, then NFC. The soft
 * hyphen survives so that line joining can tell a discretionary break.
 */
export function normalizeText(text: string, t1Controls: boolean): string {
  if (!NEEDS_WORK_RE.test(text)) return text;
  let s = text
    .replace(LIGATURE_RE, (c) => LIGATURES[c] ?? c)
    .replace(ODD_SPACE_RE, ' ')
    .replace(ZERO_WIDTH_RE, '')
    .replace(SYMBOL_PIECES_RE, '')
    .replace(CONTROL_RE, (c) => (t1Controls ? (T1_CONTROLS[c.charCodeAt(0)] ?? '') : ''))
    .replace(NFKC_SAFE_RE, (c) => c.normalize('NFKC'));
  s = s.normalize('NFC');
  return s;
}

/** Word parts before a line-end hyphen that usually start a real compound ("self-contained"). */
// Kept short on purpose: TeX also breaks plain words after "pre", "ex", "non" ("pre-sented").
const COMPOUND_PREFIXES = new Set(['self', 'well', 'ill', 'half']);

const LETTER_HYPHEN_END_RE = /(\p{L}+)[-\u2010\u00AD]$/u;
/** The last characters LETTER_HYPHEN_END_RE can match on. */
const HYPHEN_CHARS = new Set(['-', '\u2010', '\u00AD']);
const LOWER_START_RE = /^\p{Ll}/u;

/**
 * Joins wrapped lines of one paragraph. A letter + hyphen at a line end followed by a lowercase
 * word is a hyphenation break ("docu-" + "ment" -> "document"); before an uppercase letter, a digit
 * or after a compound prefix the hyphen is real and kept, without a space ("Anglo-Saxon",
 * "3-540-" + "2"). A soft hyphen is always a break. Dashes glued to a word join without a space.
 */
export function joinLines(lines: readonly string[]): string {
  let out = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (!out) {
      out = line;
      continue;
    }
    if (out.endsWith('\u00AD')) {
      out = out.slice(0, -1) + line;
      continue;
    }
    // (Only the tail: the regex would otherwise rescan the whole paragraph for every line.)
    // (And only when the paragraph ends in a hyphen at all: the regex tries every start in the tail first.)
    const hyphen = HYPHEN_CHARS.has(out[out.length - 1] ?? '') ? LETTER_HYPHEN_END_RE.exec(out.slice(-48)) : null;
    if (hyphen) {
      const word = (hyphen[1] ?? '').toLowerCase();
      if (LOWER_START_RE.test(line) && !COMPOUND_PREFIXES.has(word)) {
        out = out.slice(0, -1) + line;
      } else {
        out += line;
      }
      continue;
    }
    // "3-540-52381-" + "2." and "pages 434–" + "456": a dash glued to what precedes it continues.
    if (/[^\s][-\u2013\u2014]$/.test(out)) {
      out += line;
      continue;
    }
    out += ' ' + line;
  }
  return out.replace(/\u00AD/g, '');
}

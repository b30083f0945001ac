/**
 * Building a text line from the runs that share a baseline inside one layout region.
 */
import { logicalOrder } from './bidi-order.js';
import { ASCENT, DESCENT, type Line, type Run } from './model.js';

// Characters that mark mathematics even when the font's name is unknown: Greek, arithmetic and
// relation signs, arrows, the math operator and symbol blocks, mathematical alphanumerics.
const MATH_CHAR_RE =
  /[=<>^+±×÷√∞\u0391-\u03C9\u2190-\u21FF\u2200-\u22FF\u27C0-\u27FF\u2980-\u2AFF]|\uD835[\uDC00-\uDFFF]/gu;

export function nonSpaceLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && !(c >= 0xdc00 && c <= 0xdfff)) n++;
  }
  return n;
}

/** Whether a space belongs between two runs of one line, judged from the gap between them. */
export function needsSpace(prev: Run, next: Run): boolean {
  if (prev.text.endsWith(' ') || next.text.startsWith(' ')) return false;
  const gap = next.x0 - prev.x1;
  const size = Math.min(prev.size, next.size);
  // A word space is ~0.25-0.33 em; kerning and italic corrections stay below ~0.1 em. pdf.js's own
  // inferred space (spaceBefore) is trusted down to a smaller gap.
  return gap > 0.15 * size || (next.spaceBefore && gap > 0.05 * size);
}

/** Runs must be on one row; they are sorted here (left to right; the text is read from the right in an RTL line). */
export function buildLine(runs: Run[]): Line {
  runs.sort((a, b) => a.x0 - b.x0);
  const reading = logicalOrder(runs);
  let text = '';
  let chars = 0;
  let mono = 0;
  let math = 0;
  let bold = 0;
  let plainMono = 0;
  let mathFont = 0;
  let x0 = Infinity;
  let x1 = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  const sizeChars = new Map<number, number>();
  let prev: Run | undefined;
  for (const r of reading) {
    // The gap is judged between the two runs as they stand on the page, whichever is read first.
    if (prev && (prev.x0 <= r.x0 ? needsSpace(prev, r) : needsSpace(r, prev))) text += ' ';
    text += r.text;
    const n = nonSpaceLength(r.text);
    chars += n;
    if (r.mono) mono += n;
    if (r.bold) bold += n;
    // Code inside a bold heading ('2.1. Creation of "zoo" objects') is set in a regular
    // typewriter face; it should not make the heading look half bold.
    else if (r.mono) plainMono += n;
    if (r.math) {
      math += n;
      if (!r.mono) mathFont += n;
    } else {
      math += r.text.match(MATH_CHAR_RE)?.length ?? 0;
    }
    const key = Math.round(r.size * 10) / 10;
    sizeChars.set(key, (sizeChars.get(key) ?? 0) + n);
    if (r.x0 < x0) x0 = r.x0;
    if (r.x1 > x1) x1 = r.x1;
    const t = r.y - ASCENT * r.size;
    const b = r.y + DESCENT * r.size;
    if (t < top) top = t;
    if (b > bottom) bottom = b;
    prev = r;
  }
  let size = runs[0]?.size ?? 0;
  let best = -1;
  for (const [s, n] of sizeChars) {
    if (n > best || (n === best && s > size)) {
      best = n;
      size = s;
    }
  }
  const main = runs.find((r) => Math.abs(r.size - size) < 0.06) ?? runs[0];
  const denom = Math.max(1, chars);
  return {
    runs,
    x0,
    x1,
    top,
    bottom,
    y: main?.y ?? top,
    size,
    text: text.replace(/ {2,}/g, ' ').trim(),
    chars,
    // Symbols from a math font (a "←" marking a changed line of a listing) do not make a line of
    // code any less typewriter-set.
    mono: mono / Math.max(1, chars - mathFont),
    math: Math.min(1, math / denom),
    bold: bold > 0 ? bold / Math.max(1, chars - plainMono) : 0,
  };
}

// Words of running text; function names of math (log, sin, max, ...) do not count.
const PROSE_WORD_RE = /^[A-Za-z\u00C0-\u024F]{4,}[,.;:]?$/;

/**
 * Display math: mostly math-font glyphs, or a line with some math and at most one real word
 * ("1/k log2 c(f)   (4.4)"), as fractions and aligned formulas come apart into such lines.
 */
export function isMathLine(line: Line): boolean {
  if (line.mono >= 0.6) return false;
  if (line.math >= 0.5) return true;
  if (line.math < 0.12 || line.chars < 2) return false;
  let words = 0;
  for (const w of line.text.split(' ')) if (PROSE_WORD_RE.test(w)) words++;
  return words <= 1;
}

/** Only digits and signs (a fraction's numerators "1 1 1 1", an equation number): joins math. */
export function isNumberLine(line: Line): boolean {
  return line.text.length <= 24 && /\d/.test(line.text) && !/\p{L}/u.test(line.text);
}

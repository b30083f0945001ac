/**
 * Right-to-left lines of a text layer in reading order. A PDF draws a line's words where they stand, so
 * runs sorted by x come in visual order; pdf.js gives each run's own characters in logical order (its bidi
 * pass), but a line of several runs in Arabic or Hebrew, sorted left to right, reads its words backwards.
 * Such a line (more right-to-left letters than left-to-right ones) is read from the right: its runs are
 * taken right to left, except that a stretch of left-to-right runs inside it (a number, a Latin name,
 * "ISO 9001") keeps its own order, as the Unicode bidi algorithm orders embedded runs.
 */
import type { Run } from './model.js';

const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/gu;
/** The same class, for a yes/no test: a global regex's test() would carry lastIndex from one string to the next. */
const HAS_RTL = new RegExp(RTL.source, 'u');
const LETTER = /\p{L}/gu;
const DIGIT = /\p{Nd}/u;

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;
/** Letters of the left-to-right scripts (Latin, Cyrillic, Han, …): every letter that is not right-to-left. */
const ltrLetters = (text: string): number => count(text, LETTER) - count(text, RTL);

/** Whether the runs (of one line) are mostly right-to-left letters. */
export function isRtlLine(runs: readonly Pick<Run, 'text'>[]): boolean {
  // Most lines have no right-to-left letter at all, and counting every letter of every line (the match
  // arrays below) was 2% of a worker's time on the 500-page bench file: with none, the answer is no.
  if (!runs.some((r) => HAS_RTL.test(r.text))) return false;
  let rtl = 0;
  let ltr = 0;
  for (const r of runs) {
    rtl += count(r.text, RTL);
    ltr += ltrLetters(r.text);
  }
  return rtl > ltr;
}

/** A run that reads left to right inside a right-to-left line: Latin letters or digits and no RTL letter. */
function isLtrRun(r: Pick<Run, 'text'>): boolean {
  return count(r.text, RTL) === 0 && (ltrLetters(r.text) > 0 || DIGIT.test(r.text));
}

/** The runs of a right-to-left line (sorted left to right) in reading order; other lines as they are. */
export function logicalOrder<R extends Pick<Run, 'text'>>(sortedLeftToRight: readonly R[]): R[] {
  if (!isRtlLine(sortedLeftToRight)) return [...sortedLeftToRight];
  const groups: R[][] = [];
  for (const r of sortedLeftToRight) {
    const last = groups[groups.length - 1];
    if (last && isLtrRun(r) && isLtrRun(last[last.length - 1] as R)) last.push(r);
    else groups.push([r]);
  }
  return groups.reverse().flat();
}

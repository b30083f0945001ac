/** The part of `base` one side replaced: base[start, baseEnd) became side[start, sideEnd). */
interface Change {
  start: number;
  baseEnd: number;
  text: string;
}

function changeOf(base: string, side: string): Change | null {
  if (base === side) return null;
  let start = 0;
  while (start < base.length && start < side.length && base[start] === side[start]) start++;
  let endB = base.length;
  let endS = side.length;
  while (endB > start && endS > start && base[endB - 1] === side[endS - 1]) {
    endB--;
    endS--;
  }
  return { start, baseEnd: endB, text: side.slice(start, endS) };
}

/**
 * Three-way merge of two edits of the same text. Each side's edit is taken as one changed region against
 * the text both started from; when the regions do not overlap (two reviewers fixed different words of a
 * paragraph) both are applied. When they overlap the result is `clean: false` and holds mine, for the
 * reviewer to finish by hand beside theirs.
 */
export function mergeText(base: string, mine: string, theirs: string): { text: string; clean: boolean } {
  if (mine === theirs) return { text: mine, clean: true };
  const a = changeOf(base, mine);
  const b = changeOf(base, theirs);
  if (!a) return { text: theirs, clean: true };
  if (!b) return { text: mine, clean: true };
  const [first, second] = a.start <= b.start ? [a, b] : [b, a];
  const overlap = first.baseEnd > second.start;
  // Two insertions at the same place ("ab" -> "aXb" and "ab" -> "aYb") have no order of their own.
  const sameInsertPoint =
    first.start === first.baseEnd && second.start === second.baseEnd && first.start === second.start;
  if (overlap || sameInsertPoint) return { text: mine, clean: false };
  const text =
    base.slice(0, first.start) +
    first.text +
    base.slice(first.baseEnd, second.start) +
    second.text +
    base.slice(second.baseEnd);
  return { text, clean: true };
}

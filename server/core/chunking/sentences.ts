// Boundary finders shared by the token tail (overlap) and the splitting of over-long blocks.
// They return start offsets only, so callers can rebuild the exact original text between pieces.

function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
}

/** . ! ? … and the full-width 。！？ */
function isTerminator(c: number): boolean {
  return c === 46 || c === 33 || c === 63 || c === 0x2026 || c === 0x3002 || c === 0xff01 || c === 0xff1f;
}

/** Closing quotes and brackets that may follow a terminator: " ' ) ] » ” ’ */
function isCloser(c: number): boolean {
  return c === 34 || c === 39 || c === 41 || c === 93 || c === 0xbb || c === 0x201d || c === 0x2019;
}

function isLower(ch: string): boolean {
  return ch !== ch.toUpperCase() && ch === ch.toLowerCase();
}

/**
 * Offsets where sentences start (the first non-space character of each). A boundary follows a run of
 * sentence terminators (plus closing quotes/brackets) and whitespace, unless the next word starts in
 * lower case ("e.g. the" is not a boundary); a blank line is always a boundary.
 */
export function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  const len = text.length;
  let i = skipSpace(text, 0);
  if (i < len) starts.push(i);
  while (i < len) {
    const c = text.charCodeAt(i);
    if (isSpaceCode(c)) {
      const k = skipSpace(text, i);
      if (k >= len) break;
      if (newlines(text, i, k) >= 2) starts.push(k);
      i = k;
    } else if (isTerminator(c)) {
      let j = i + 1;
      while (j < len && (isTerminator(text.charCodeAt(j)) || isCloser(text.charCodeAt(j)))) j++;
      if (j < len && isSpaceCode(text.charCodeAt(j))) {
        const k = skipSpace(text, j);
        if (k >= len) break;
        if (!isLower(text[k]!) || newlines(text, j, k) >= 2) starts.push(k);
        i = k;
      } else {
        i = j;
      }
    } else {
      i++;
    }
  }
  return starts;
}

function skipSpace(text: string, from: number): number {
  let k = from;
  while (k < text.length && isSpaceCode(text.charCodeAt(k))) k++;
  return k;
}

function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) n++;
  return n;
}

/** Offsets where lines start, blank lines skipped; indentation belongs to its line. */
export function lineStarts(text: string): number[] {
  const starts: number[] = [];
  let lineStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i === text.length || text[i] === '\n') {
      if (text.slice(lineStart, i).trim() !== '') starts.push(lineStart);
      lineStart = i + 1;
    }
  }
  return starts;
}

/** Offsets where whitespace-separated words start. */
export function wordStarts(text: string): number[] {
  const starts: number[] = [];
  let prevSpace = true;
  for (let i = 0; i < text.length; i++) {
    const space = isSpaceCode(text.charCodeAt(i));
    if (!space && prevSpace) starts.push(i);
    prevSpace = space;
  }
  return starts;
}

/** End of the range [start, end) with trailing whitespace removed. */
export function trimmedEnd(text: string, start: number, end: number): number {
  let e = end;
  while (e > start && isSpaceCode(text.charCodeAt(e - 1))) e--;
  return e;
}

/** First non-space offset at or after `from`. */
export function trimmedStart(text: string, from: number): number {
  return skipSpace(text, from);
}

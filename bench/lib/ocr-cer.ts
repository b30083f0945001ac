/**
 * Character error rate: Levenshtein distance between the normalised OCR text and the normalised ground truth,
 * divided by the length of the normalised ground truth. Normalising collapses every run of whitespace
 * (line breaks included) to one space and trims, because line breaks and column spacing are layout, which
 * the block structure carries, not characters OCR got wrong. Case and punctuation count.
 */
export function normaliseForCer(text: string): string {
  return (
    text
      .normalize('NFKC')
      // Typographic quotes and dashes come out of OCR as ASCII about as often as not; they are not misreadings.
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201c\u201d]/g, '"')
      .replace(/[\u2013\u2014]/g, '-')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Edit distance with two rows of memory (pages are a few thousand characters, so O(n*m) time is fine). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}

export function cer(hypothesis: string, reference: string): number {
  const ref = normaliseForCer(reference);
  const hyp = normaliseForCer(hypothesis);
  return ref.length === 0 ? (hyp.length === 0 ? 0 : 1) : levenshtein(hyp, ref) / ref.length;
}

/**
 * The same rate with reading order taken out: both texts' words sorted before the distance is taken. A
 * misread word then costs about twice its length (it sorts elsewhere), so this is an upper bound on the
 * character errors proper, and it does not punish a table read row by row against a reference that lists it
 * column by column.
 */
export function orderFreeCer(hypothesis: string, reference: string): number {
  const sorted = (t: string): string => normaliseForCer(t).split(' ').sort().join(' ');
  return cer(sorted(hypothesis), sorted(reference));
}

/** Plain text of OCR blocks in reading order; a table contributes its cells row by row. */
export function blocksText(blocks: ReadonlyArray<{ text: string; table?: { rows: string[][] } }>): string {
  return blocks.map((b) => (b.table ? b.table.rows.flat().filter(Boolean).join(' ') : b.text)).join('\n');
}

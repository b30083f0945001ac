/** A run of the compared text: kept from the base, removed from it, or added. */
export interface DiffPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Words, runs of white space and single punctuation marks: "river." differs from "river," by one mark. */
const tokens = (s: string): string[] => s.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];

/** Beyond this many cells the middle is shown as one replaced run rather than aligned word by word. */
const MAX_CELLS = 1_000_000;

function push(parts: DiffPart[], kind: DiffPart['kind'], text: string): void {
  if (!text) return;
  const last = parts[parts.length - 1];
  if (last?.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** Longest common subsequence of two token lists, walked back into removed, added and kept runs. */
function alignMiddle(a: string[], b: string[], parts: DiffPart[]): void {
  const n = a.length;
  const m = b.length;
  if (!n || !m || n * m > MAX_CELLS) {
    push(parts, 'removed', a.join(''));
    push(parts, 'added', b.join(''));
    return;
  }
  // lcs[i][j]: common length of a[i..] and b[j..], one row of m + 1 per i.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * (m + 1) + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j] ?? 0, lcs[i * (m + 1) + j + 1] ?? 0);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      push(parts, 'same', a[i++] ?? '');
      j++;
    } else if ((lcs[(i + 1) * (m + 1) + j] ?? 0) >= (lcs[i * (m + 1) + j + 1] ?? 0))
      push(parts, 'removed', a[i++] ?? '');
    else push(parts, 'added', b[j++] ?? '');
  }
  push(parts, 'removed', a.slice(i).join(''));
  push(parts, 'added', b.slice(j).join(''));
}

/**
 * What `side` did to `base`, word by word: the runs of `side` kept from `base`, the words it removed and
 * the words it added, in reading order. The common start and end are cut first, so two edits of one word
 * of a long paragraph cost almost nothing.
 */
export function wordDiff(base: string, side: string): DiffPart[] {
  const a = tokens(base);
  const b = tokens(side);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  push(parts, 'same', a.slice(0, start).join(''));
  alignMiddle(a.slice(start, endA), b.slice(start, endB), parts);
  push(parts, 'same', a.slice(endA).join(''));
  return parts;
}

/** Keys under which revisions and snapshots keep content (text, table cells, notes that may quote it). */
const CONTENT_KEYS = new Set([
  'text',
  'originalText',
  'original_text',
  'editedText',
  'edited_text',
  'tableGrid',
  'table_grid',
  'reviewerNote',
  'reviewer_note',
  'draft',
  'answer',
]);

/** A copy of a revision's JSON with every content value, at any depth, replaced by null. */
export function scrubContent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubContent);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, CONTENT_KEYS.has(k) ? null : scrubContent(v)]));
  }
  return value;
}

/**
 * Shorter texts than this are not searched for in other entities' revisions: a purged "1" or "Notes"
 * would otherwise blank every revision that happens to contain the word.
 */
const MIN_QUOTED_LENGTH = 12;

/** Replaces each occurrence of the purged texts in any string, at any depth, with a marker. */
export function redactQuotes(value: unknown, texts: readonly string[]): unknown {
  const quoted = texts.filter((t) => t.trim().length >= MIN_QUOTED_LENGTH).sort((a, b) => b.length - a.length);
  if (quoted.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return quoted.reduce((s, t) => s.split(t).join('[PURGED]'), v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/**
 * A chunk's text without one block's text: the block's paragraph taken out where it appears verbatim
 * (chunks join blocks with blank lines), undefined when it cannot be found so (a heading or table the
 * chunker rewrote): the caller then purges the whole chunk rather than leave the content in it.
 */
export function withoutBlockText(chunkText: string, blockTexts: readonly string[]): string | undefined {
  let out = chunkText;
  let found = false;
  // Longest first: an edited text often begins with the machine's reading, which would leave the edit's tail.
  const texts = blockTexts
    .map((x) => x.trim())
    .filter(Boolean)
    .sort((a, b) => b.length - a.length);
  for (const t of texts) {
    if (!out.includes(t)) continue;
    out = out.split(t).join('');
    found = true;
  }
  if (!found) return undefined;
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * Whether a text is CSV (or TSV): its records, read with quotes as CSV reads them (a quoted field may hold
 * the delimiter and line breaks), have the same number of fields for one of the delimiters. A `.csv`/`.tsv`
 * name only lowers the bar, as a `.md` name does for Markdown; without one, the text must show it plainly,
 * as prose with a comma or two per line must not become a table.
 */
const DELIMITERS = [',', ';', '\t'] as const;

/** Records seen at most (the head of an upload is 64 KiB). */
const MAX_RECORDS = 200;

/** Field counts of the records of `text`, blank lines left out; `partial`: the text is cut, its last record dropped. */
function recordShapes(
  text: string,
  delimiter: string,
  partial: boolean,
): { counts: number[]; spaced: number; fields: number } {
  const counts: number[] = [];
  let fields = 1;
  let spaced = 0;
  let total = 0;
  let quoted = false;
  let fieldStart = true;
  let blank = true;
  for (let i = 0; i < text.length && counts.length < MAX_RECORDS; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') i++;
        else quoted = false;
      }
      continue;
    }
    if (c === '"' && fieldStart) {
      quoted = true;
      fieldStart = false;
      blank = false;
    } else if (c === delimiter) {
      fields++;
      fieldStart = true;
      blank = false;
      if (text[i + 1] === ' ') spaced++;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      if (!blank) {
        counts.push(fields);
        total += fields;
      }
      fields = 1;
      fieldStart = true;
      blank = true;
    } else {
      fieldStart = false;
      if (c !== ' ' && c !== '\t') blank = false;
    }
  }
  // The last record counts when the text is whole and the record ended outside quotes.
  if (!partial && !blank && !quoted && counts.length < MAX_RECORDS) {
    counts.push(fields);
    total += fields;
  }
  return { counts, spaced, fields: total };
}

export function looksLikeCsv(text: string, partial: boolean, hinted: boolean): boolean {
  // A named CSV whose first record is longer than the head has no shape to show: the name decides.
  if (hinted && partial && !/[\r\n]/.test(text)) return true;
  for (const delimiter of DELIMITERS) {
    const { counts, spaced, fields } = recordShapes(text, delimiter, partial);
    if (counts.length === 0) continue;
    const first = counts[0] ?? 0;
    const same = counts.filter((n) => n === first).length;
    if (hinted) {
      // A named CSV may be ragged (short last fields) or a single column.
      if (same >= counts.length * 0.8) return true;
      continue;
    }
    if (first < 2 || same !== counts.length || counts.length < 3) continue;
    if (first < 3 && counts.length < 5) continue;
    // Prose puts a space after its commas; CSV writers do not.
    if (delimiter === ',' && spaced > (fields - counts.length) * 0.5) continue;
    return true;
  }
  return false;
}

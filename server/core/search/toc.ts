/**
 * Tables of contents (and lists of figures or tables) repeat every heading of a document, so they match
 * almost any query by keyword and often by meaning, and would top the results while answering nothing.
 * They are recognised by their form, not by a word list: most lines are entries ending in a page number,
 * usually after dotted leaders ("3.2 Single equations . . . . 3"), and page numbers often stand alone on
 * their own lines where the extractor read the page column apart from the titles.
 */

/** Dotted leaders: four or more dots (with or without spaces between them), or ellipses. */
const LEADER = /(?:\.\s?){4,}|(?:…\s?){2,}/;
/** An entry without leaders: a numbered title ending in a page number ("4.1 Matrices 12", "A Notes 41"). */
const NUMBERED_ENTRY = /^\s*(?:\d+(?:\.\d+)*|[A-Z]|[IVXLC]+)\.?\s+\S.*\s(?:\d{1,4}|[ivxlc]{1,6})\s*$/;
/** A page number alone on its line (the page column read apart from the titles). */
const BARE_PAGE = /^\s*(?:\d{1,4}|[ivxlc]{1,6})\s*$/i;
const CONTENTS_HEADING = /^\s*(table of contents|contents|list of (figures|tables))\s*$/i;

interface TocSignals {
  lines: number;
  /** Lines with dotted leaders. */
  leaders: number;
  /** Entries: leader lines and numbered titles ending in a page number. */
  entries: number;
  /** Page numbers alone on a line. */
  barePages: number;
  /** The entries' trailing page numbers (arabic), in order: a table of contents never goes back. */
  pages: number[];
}

/**
 * A line as text: a Markdown table row (the extractor writes a table of contents laid out in columns as
 * one) becomes its non-empty cells joined by spaces; separator rows become nothing.
 */
function lineText(line: string): string {
  const t = line.trim();
  if (!t.startsWith('|')) return t;
  if (/^\|?[\s:|-]+\|?$/.test(t) && t.includes('-')) return '';
  return t
    .split('|')
    .map((c) => c.trim())
    .filter(Boolean)
    .join(' ');
}

function tocSignals(text: string): TocSignals {
  const lines = text.split(/\r?\n/).map(lineText).filter(Boolean);
  let leaders = 0;
  let entries = 0;
  let barePages = 0;
  const pages: number[] = [];
  for (const line of lines) {
    const isLeader = LEADER.test(line);
    if (isLeader) leaders++;
    if (isLeader || NUMBERED_ENTRY.test(line)) {
      entries++;
      const page = /(\d{1,4})\s*$/.exec(line)?.[1];
      if (page) pages.push(Number(page));
    } else if (BARE_PAGE.test(line)) barePages++;
  }
  return { lines: lines.length, leaders, entries, barePages, pages };
}

const nonDecreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x >= xs[i - 1]!);

/**
 * True when the chunk reads as a table of contents: three or more leader lines; or a section named
 * Contents / List of figures with two or more entries; or entries (and bare page numbers) making up most
 * of its lines, at least three of them, with page numbers that never go back (a numbered data table's
 * last column does not keep rising like pages do).
 */
export function isTableOfContents(text: string, sectionPath: readonly string[] = []): boolean {
  const s = tocSignals(text);
  if (s.leaders >= 3) return true;
  const named =
    sectionPath.some((h) => CONTENTS_HEADING.test(h)) || CONTENTS_HEADING.test(text.split(/\r?\n/, 1)[0] ?? '');
  if (named && s.entries + s.barePages >= 2) return true;
  return (
    s.entries >= 3 &&
    (s.entries + s.barePages) / Math.max(1, s.lines) >= 0.5 &&
    s.pages.length >= 3 &&
    nonDecreasing(s.pages)
  );
}

/** Stable partition: what is not a table of contents first, in its order, then the tables of contents. */
export function demoteTablesOfContents<T>(ranked: readonly T[], isToc: (item: T) => boolean): T[] {
  const body: T[] = [];
  const tocs: T[] = [];
  for (const item of ranked) (isToc(item) ? tocs : body).push(item);
  return [...body, ...tocs];
}

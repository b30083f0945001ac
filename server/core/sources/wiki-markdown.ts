/**
 * A MediaWiki plain-text extract (TextExtracts with `explaintext`, sections as `== Heading ==` lines)
 * turned into Markdown that Lectern's Markdown extractor reads back as the same text with its structure:
 * the title as `#`, each section heading at its level, each line of text its own paragraph.
 */

/**
 * Backslash-escapes what Markdown would otherwise read as markup inside plain text (emphasis, code,
 * links, raw HTML, entities, strikethrough, math), so the extracted text equals the article's.
 */
function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]<>&~$]/g, '\\$&');
}

/**
 * One line of article text as a Markdown paragraph. Leading spaces would make an indented code block;
 * a leading `#`, `+`, `-` or `1.` a heading, list item or rule: those are escaped too.
 */
function paragraph(line: string): string {
  return escapeInline(line.trim())
    .replace(/^([#+-])/, '\\$1')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/** Heading text: inline escapes, and a trailing `#` that Markdown would take for a closing sequence. */
function headingText(text: string): string {
  return escapeInline(text.trim()).replace(/#$/, '\\#');
}

type Item = { kind: 'heading'; level: number; text: string } | { kind: 'text'; text: string };

const HEADING = /^(={1,6})\s*(.*?)\s*\1\s*$/;

function items(extract: string): Item[] {
  const out: Item[] = [];
  for (const line of extract.replace(/\r\n?/g, '\n').split('\n')) {
    const m = HEADING.exec(line);
    if (m?.[1] && m[2]) out.push({ kind: 'heading', level: m[1].length, text: m[2] });
    else if (line.trim() !== '') out.push({ kind: 'text', text: line });
  }
  return out;
}

/**
 * Whether the heading at `i` has text before the next heading of its level or above. Extracts keep the
 * headings of sections made only of lists, references or galleries (which `explaintext` drops), and a
 * heading alone would become an empty chunk.
 */
function hasContent(list: readonly Item[], i: number, level: number): boolean {
  for (let j = i + 1; j < list.length; j++) {
    const item = list[j];
    if (item === undefined) break;
    if (item.kind === 'text') return true;
    if (item.level <= level) return false;
  }
  return false;
}

/** The article as Markdown, headed by its title. */
export function wikiExtractToMarkdown(title: string, extract: string): string {
  const list = items(extract);
  const parts = [`# ${headingText(title)}`];
  list.forEach((item, i) => {
    if (item.kind === 'text') parts.push(paragraph(item.text));
    else if (hasContent(list, i, item.level)) parts.push(`${'#'.repeat(item.level)} ${headingText(item.text)}`);
  });
  return `${parts.join('\n\n')}\n`;
}

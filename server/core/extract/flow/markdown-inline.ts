/**
 * Markdown helpers around marked's lexer: a private Marked instance with a `$$...$$` block-math
 * tokenizer, front-matter stripping, and inline tokens -> plain text.
 */
import { Marked, type Token, type Tokens, type TokenizerExtension } from 'marked';
import { DomUtils, parseDocument } from 'htmlparser2';

/** Display math: `$$` at the start of a block up to the closing `$$` at the end of a line. */
const BLOCK_MATH = /^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n|$)/;

const blockMath: TokenizerExtension = {
  name: 'blockMath',
  level: 'block',
  // Lets a `$$` line interrupt a paragraph, as it does in the Markdown flavours that support math.
  // marked asks this for every paragraph with the whole rest of the document; looking only up to
  // the next blank line (where the paragraph ends anyway) keeps lexing linear instead of quadratic.
  start(src: string) {
    const end = src.indexOf('\n\n');
    const m = /(?:^|\n) {0,3}\$\$/.exec(end < 0 ? src : src.slice(0, end + 1));
    if (!m) return undefined;
    return m[0].startsWith('\n') ? m.index + 1 : m.index;
  },
  tokenizer(src: string) {
    const m = BLOCK_MATH.exec(src);
    if (!m) return undefined;
    return { type: 'blockMath', raw: m[0], text: (m[1] ?? '').trim() };
  },
};

/**
 * A private instance: `marked.use()` elsewhere in the process (a renderer for the UI, say) mutates
 * the global `marked` and must not change what the extractor sees.
 */
export const markdownLexer = new Marked({ gfm: true }).use({ extensions: [blockMath] });

export interface FrontMatter {
  body: string;
  title: string | undefined;
}

/** A line YAML front matter can hold: `key: value`, list entries, indented continuations, comments. */
const YAML_LINE = /^(?:\s*$|\s+\S|#|-(?:\s|$)|[\w"'$@.-][^:\n]*:(?:\s|$))/;

/**
 * Strips YAML (`---`) or TOML (`+++`) front matter at the very top. A `---` rule followed by prose
 * and another `---` is a horizontal rule, not front matter, so the lines between must look like YAML.
 */
export function stripFrontMatter(md: string): FrontMatter {
  const m = /^\uFEFF?(---|\+\+\+)[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:\1|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(md);
  if (!m) return { body: md, title: undefined };
  const inner = m[2] ?? '';
  const lines = inner.split(/\r?\n/);
  if (m[1] === '---' && !lines.every((line) => YAML_LINE.test(line))) return { body: md, title: undefined };
  const title = /^title\s*[:=]\s*(.+?)\s*$/m.exec(inner)?.[1]?.replace(/^(["'])(.*)\1$/, '$2');
  return { body: md.slice(m[0].length), title: title !== undefined && title !== '' ? title : undefined };
}

/** Decodes HTML entities (`&amp;`, `&#233;`) the way a Markdown renderer would show them. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  // `<` is escaped first so the parser cannot mistake text for a tag; it then only decodes.
  return DomUtils.textContent(parseDocument(text.replace(/</g, '&lt;')));
}

function htmlInline(raw: string): string {
  if (/^<br\b/i.test(raw)) return '\n';
  if (/^<img\b/i.test(raw)) return ` ${imgAlt(raw)} `;
  return ''; // other inline tags (<b>, <span>, comments) are formatting only
}

/** The alt text of an inline `<img>` tag. */
export function imgAlt(raw: string): string {
  const alt = /\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(raw);
  return decodeEntities(alt ? (alt[1] ?? alt[2] ?? alt[3] ?? '') : '');
}

/**
 * Inline tokens -> text: formatting dropped, link and image text kept, hard breaks as "\n", soft
 * line breaks as spaces (what the rendered paragraph shows). Whitespace is collapsed by the caller.
 */
export function inlineText(tokens: readonly Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        out += t.tokens ? inlineText(t.tokens) : decodeEntities(String(t.text)).replace(/\s+/g, ' ');
        break;
      case 'escape':
      case 'codespan':
        out += String(t.text);
        break;
      case 'br':
        out += '\n';
        break;
      case 'image':
        out += ` ${String(t.text)} `;
        break;
      case 'html':
        out += htmlInline(String(t.raw));
        break;
      default: {
        // strong, em, del, link, and tokens of marked extensions: their children or their text.
        const g = t as Tokens.Generic;
        out += g.tokens ? inlineText(g.tokens) : typeof g['text'] === 'string' ? g['text'] : '';
        break;
      }
    }
  }
  return out;
}

/** Whether a paragraph holds nothing but images (Markdown `![]()` or `<img>`): a figure. */
export function imagesOnly(tokens: readonly Token[]): Array<{ alt: string }> | null {
  const images: Array<{ alt: string }> = [];
  for (const t of tokens) {
    if (t.type === 'image') images.push({ alt: String(t.text) });
    else if (t.type === 'html' && /^<img\b/i.test(String(t.raw))) images.push({ alt: imgAlt(String(t.raw)) });
    else if (t.type === 'link' && t.tokens && imagesOnly(t.tokens)) images.push(...(imagesOnly(t.tokens) ?? []));
    else if (t.type === 'br' || (t.type === 'text' && String(t.raw).trim() === '')) continue;
    else return null;
  }
  return images.length > 0 ? images : null;
}

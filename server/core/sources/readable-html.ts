/**
 * A web page reduced to its main content with Mozilla's Readability (Firefox's Reader View) over linkedom:
 * navigation, ads, sidebars and footers go; headings, lists, tables and code stay as HTML, so Lectern's
 * HTML extractor still reads the structure. The result is a small, standalone UTF-8 HTML document.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/**
 * Readability's scoring walks the tree many times and runs synchronously (about 3 s for 30,000 elements
 * on one core, twice that at 60,000); past this many elements a page is kept whole instead, since the
 * HTML extractor reads any size (boilerplate included) and the worker thread doing it would be held up.
 */
export const MAX_READABLE_ELEMENTS = 30_000;

export interface ReadablePage {
  /** A complete HTML document: `<title>`, then the article after an `<h1>` with the title. */
  html: string;
  title: string | undefined;
  /** Characters of article text; 0 when the page has no readable content. */
  text_length: number;
  /** false: the page had too many elements for Readability and is kept whole. */
  reduced: boolean;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function oneLine(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * Readability keeps a page's `<title>` whole when cutting the site name off would leave under three
 * words ("Heat transfer | Example Site"). A page's only `<h1>` that the title starts with, or contains,
 * is the article's own name without the site's.
 */
function articleTitle(readabilityTitle: string, h1s: readonly string[]): string | undefined {
  const title = oneLine(readabilityTitle);
  const [h1] = h1s;
  if (h1s.length === 1 && h1 !== undefined && h1 !== '' && title.includes(h1)) return h1;
  return title || (h1s.length === 1 ? h1 : undefined) || undefined;
}

/**
 * Readability strips every class but the few it is told to keep; the HTML extractor reads a code
 * block's language from `language-*` / `lang-*` classes, so those present on the page are kept.
 */
function codeLanguageClasses(document: Document): string[] {
  const keep = new Set<string>();
  for (const el of Array.from(document.querySelectorAll('pre, code'))) {
    for (const c of Array.from(el.classList)) if (/^(?:language|lang)-/i.test(c)) keep.add(c);
  }
  return [...keep];
}

/**
 * Linkedom leaves `baseURI` and `documentURI` unset; Readability resolves the article's relative links
 * and images against them, so they are given the page's URL (or its `<base href>`).
 */
function setDocumentUrl(document: Document, pageUrl: string): void {
  let base = pageUrl;
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      base = new URL(href, pageUrl).href;
    } catch {
      // an unusable <base>: links resolve against the page itself, as browsers do
    }
  }
  Object.defineProperty(document, 'baseURI', { value: base, configurable: true });
  Object.defineProperty(document, 'documentURI', { value: pageUrl, configurable: true });
}

function page(title: string | undefined, lang: string | undefined, body: string): string {
  const langAttr = lang ? ` lang="${escapeHtml(lang)}"` : '';
  const head = `<meta charset="utf-8">${title ? `<title>${escapeHtml(title)}</title>` : ''}`;
  const h1 = title ? `<h1>${escapeHtml(title)}</h1>` : '';
  return `<!DOCTYPE html>\n<html${langAttr}><head>${head}</head>\n<body>${h1}\n${body}\n</body></html>\n`;
}

/** The main content of `html`, fetched from `pageUrl`. */
export function readablePage(html: string, pageUrl: string): ReadablePage {
  const { document } = parseHTML(html);
  setDocumentUrl(document, pageUrl);
  const h1s = Array.from(document.querySelectorAll('h1')).map((h) => oneLine(h.textContent));
  const lang = document.documentElement?.getAttribute('lang') ?? undefined;
  // Linkedom's getElementsByTagName('*') finds nothing (so Readability's own maxElemsToParse never
  // triggers either); querySelectorAll('*') counts every element.
  if (document.querySelectorAll('*').length > MAX_READABLE_ELEMENTS) {
    const title = articleTitle(document.title, h1s);
    const text = oneLine(document.body?.textContent);
    return { html: page(title, lang, document.body?.innerHTML ?? ''), title, text_length: text.length, reduced: false };
  }
  const article = new Readability(document, { classesToPreserve: codeLanguageClasses(document) }).parse();
  const text = oneLine(article?.textContent);
  if (!article || text === '') return { html: '', title: undefined, text_length: 0, reduced: true };
  const title = articleTitle(article.title ?? '', h1s);
  return {
    html: page(title, article.lang ?? lang, article.content ?? ''),
    title,
    text_length: text.length,
    reduced: true,
  };
}

/**
 * DOM vocabulary for the HTML extractor: node types, tag classes and the text helpers that several
 * walkers share. The node types are derived from htmlparser2's own signatures so that we do not
 * import `domhandler` (a transitive dependency that package.json does not list).
 */
import { DomUtils, ElementType } from 'htmlparser2';
import { oneLine } from './result.js';

export type DomNode = Parameters<typeof DomUtils.getParent>[0];
export type DomElement = Parameters<typeof DomUtils.getAttributeValue>[0];
export type DomText = DomNode & { data: string };

export function isElement(node: DomNode): node is DomElement {
  return node.type === ElementType.Tag || node.type === ElementType.Script || node.type === ElementType.Style;
}

export function isTextNode(node: DomNode): node is DomText {
  return node.type === ElementType.Text;
}

/**
 * Elements whose content is never document text (code, metadata, UI controls, fallbacks). <head>
 * itself is walked: its metadata children are ignored one by one, and when a page omits </head>
 * and <body> the parser leaves the real content inside <head>.
 */
const IGNORED = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'title',
  'meta',
  'link',
  'base',
  'iframe',
  'object',
  'embed',
  'audio',
  'video',
  'track',
  'source',
  'canvas',
  'map',
  'area',
  'input',
  'button',
  'select',
  'option',
  'optgroup',
  'datalist',
  'textarea',
  'output',
  'rp',
  'param',
]);

/** Elements that start and end a block of text (everything else is inline). */
export const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'listing',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'plaintext',
  'pre',
  'search',
  'section',
  'summary',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'ul',
  'xmp',
]);

/** Embedded media that make a figure. */
export const MEDIA = new Set(['img', 'svg', 'picture', 'video', 'canvas', 'object', 'embed', 'iframe']);

export function classList(el: DomElement): string[] {
  return (el.attribs['class'] ?? '').split(/\s+/).filter(Boolean);
}

export function isHidden(el: DomElement): boolean {
  if (el.attribs['hidden'] !== undefined) return true;
  if (/display\s*:\s*none/i.test(el.attribs['style'] ?? '')) return true;
  // KaTeX renders every formula twice: MathML (read as the equation) and a visual copy made of
  // spans whose text would come out as garbled duplicates.
  return classList(el).includes('katex-html');
}

export function isIgnored(el: DomElement): boolean {
  if (el.name === 'script') return !isMathScript(el);
  return IGNORED.has(el.name) || isHidden(el);
}

/** MathJax 2 keeps TeX in <script type="math/tex"> elements, the only scripts that hold content. */
export function isMathScript(el: DomElement): boolean {
  return el.name === 'script' && /^math\/tex/i.test(el.attribs['type'] ?? '');
}

export function isMathElement(el: DomElement): boolean {
  return el.name === 'math' || isMathScript(el) || classList(el).includes('math');
}

/** Whether a math element is display math (its own block) rather than part of a sentence. */
export function isDisplayMath(el: DomElement): boolean {
  if (el.name === 'math') return el.attribs['display'] === 'block';
  if (isMathScript(el)) return /mode\s*=\s*display/i.test(el.attribs['type'] ?? '');
  const cls = classList(el);
  return cls.includes('display') || (BLOCK.has(el.name) && !cls.includes('inline'));
}

/** TeX (preferred, it is what authors wrote) or the plain text of a formula, without delimiters. */
export function mathText(el: DomElement): string {
  if (el.name === 'math') {
    const alt = el.attribs['alttext'];
    if (alt !== undefined && alt.trim() !== '') return oneLine(alt);
    const tex = DomUtils.findOne(
      (e) => e.name === 'annotation' && /tex/i.test(e.attribs['encoding'] ?? ''),
      el.children,
    );
    if (tex) return oneLine(DomUtils.textContent(tex));
    // Presentation MathML: the text of the token elements (mi, mo, mn...), annotations left out.
    const walk = (node: DomNode): string => {
      if (isTextNode(node)) return node.data;
      if (!isElement(node) || node.name === 'annotation' || node.name === 'annotation-xml') return '';
      return node.children.map(walk).join(' ');
    };
    return oneLine(walk(el));
  }
  return stripMathDelimiters(oneLine(DomUtils.textContent(el)));
}

export function stripMathDelimiters(tex: string): string {
  const m = /^(?:\$\$([\s\S]*)\$\$|\\\[([\s\S]*)\\\]|\\\(([\s\S]*)\\\)|\$([^$]*)\$)$/.exec(tex.trim());
  return (m ? (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '') : tex).trim();
}

export function altText(el: DomElement): string {
  return oneLine(el.attribs['alt'] ?? el.attribs['title'] ?? el.attribs['aria-label'] ?? '');
}

/** Text of an <svg> for figures: its accessible title, if it has one. */
export function svgText(el: DomElement): string {
  const label = el.attribs['aria-label'];
  if (label !== undefined) return oneLine(label);
  const title = el.children.find((c): c is DomElement => isElement(c) && c.name === 'title');
  return title ? oneLine(DomUtils.textContent(title)) : '';
}

/**
 * Plain text of a subtree as a renderer would show it: whitespace collapsed, <br> as "\n", block
 * boundaries as "\n" (callers flatten further when they need one line). `media: false` leaves out
 * image alt texts and formulas, for checks that ask "is there *text* around this image?".
 */
export function textOf(node: DomNode, media = true): string {
  if (isTextNode(node)) return node.data.replace(/\s+/g, ' ');
  if (!isElement(node) || isIgnored(node)) return '';
  if (node.name === 'br') return '\n';
  if (node.name === 'svg') return '';
  if (node.name === 'img') return media ? ` ${altText(node)} ` : '';
  if (isMathElement(node)) return media ? ` ${mathText(node)} ` : '';
  const inner = node.children.map((c) => textOf(c, media)).join('');
  return BLOCK.has(node.name) ? `\n${inner}\n` : inner;
}

/** Language of a <pre>/<code> block from the usual class conventions (highlight.js, Prism, pandoc). */
export function codeLanguage(pre: DomElement): string | undefined {
  const candidates = [pre, ...DomUtils.findAll((e) => e.name === 'code', pre.children)];
  for (const el of candidates) {
    const data = el.attribs['data-lang'] ?? el.attribs['data-language'];
    if (data !== undefined && data.trim() !== '') return data.trim().toLowerCase();
    const cls = classList(el);
    for (const c of cls) {
      const m = /^(?:language|lang)-(.+)$/i.exec(c);
      if (m?.[1]) return m[1].toLowerCase();
    }
    // pandoc: <pre class="sourceCode python">
    if (cls.includes('sourceCode')) {
      const other = cls.find((c) => c !== 'sourceCode' && c !== 'numberSource');
      if (other) return other.toLowerCase();
    }
  }
  return undefined;
}

/** Text of a <pre>: whitespace kept, <br> as a newline, markup (highlighting spans) dropped. */
export function preText(el: DomElement): string {
  const walk = (node: DomNode): string => {
    if (isTextNode(node)) return node.data;
    if (!isElement(node) || isIgnored(node)) return '';
    if (node.name === 'br') return '\n';
    return node.children.map(walk).join('');
  };
  const raw = el.children.map(walk).join('').replace(/\r\n?/g, '\n');
  // The HTML parser drops one newline right after <pre>; trailing blank lines are layout only.
  return raw
    .replace(/^\n/, '')
    .replace(/\s+$/, '')
    .replace(/^(?:[ \t]*\n)+/, '');
}

/**
 * Whether the node has visible text before the next block boundary, ignoring media (so that an
 * image is "alone in its paragraph" even when it sits next to other images).
 */
export function hasTextAfter(node: DomNode): boolean {
  let cur: DomNode = node;
  for (;;) {
    for (let sib = cur.next; sib; sib = sib.next) {
      if (isElement(sib) && BLOCK.has(sib.name)) return false;
      if (oneLine(textOf(sib, false)) !== '') return true;
    }
    const parent: DomNode | null = cur.parent;
    if (!parent || !isElement(parent) || BLOCK.has(parent.name)) return false;
    cur = parent;
  }
}

/** Whether the element sits inside one of the named elements. */
export function hasAncestor(el: DomNode, names: ReadonlySet<string>): boolean {
  for (let p = el.parent; p; p = p.parent) if (isElement(p) && names.has(p.name)) return true;
  return false;
}

/**
 * Replaces the content of every element deeper than `maxDepth` by its plain text, without
 * recursion (this runs before the recursive walkers, to bound their depth).
 */
export function clampDepth(root: { children: DomNode[] }, maxDepth: number): void {
  const stack: Array<{ node: DomNode; depth: number }> = root.children.map((node) => ({ node, depth: 1 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: DomNode; depth: number };
    if (!isElement(node)) continue;
    if (depth < maxDepth) {
      for (const c of node.children) stack.push({ node: c, depth: depth + 1 });
      continue;
    }
    // Collect the subtree's text iteratively, then keep one text node (reused) holding all of it.
    const texts: DomText[] = [];
    const pending: DomNode[] = [...node.children].reverse();
    while (pending.length > 0) {
      const n = pending.pop() as DomNode;
      if (isTextNode(n)) texts.push(n);
      else if (isElement(n) && !isIgnored(n))
        for (let i = n.children.length - 1; i >= 0; i--) pending.push(n.children[i] as DomNode);
    }
    const first = texts[0];
    if (!first) {
      node.children = [];
      continue;
    }
    first.data = texts.map((t) => t.data).join('');
    first.parent = node;
    first.prev = null;
    first.next = null;
    node.children = [first];
  }
}

/** Inside these, <header>/<footer> belong to the content (an article's byline), not the page. */
const SECTIONING = new Set(['article', 'aside', 'main', 'section', 'blockquote', 'figure', 'li', 'td', 'th', 'dialog']);

/** Page furniture: page-level <header>/<nav> (or ARIA roles) and <footer>; null for content. */
export function furnitureType(el: DomElement): 'header' | 'footer' | null {
  const role = el.attribs['role'];
  let type: 'header' | 'footer' | null = null;
  if (el.name === 'header' || el.name === 'nav' || role === 'banner' || role === 'navigation') type = 'header';
  else if (el.name === 'footer' || role === 'contentinfo') type = 'footer';
  if (type === null) return null;
  return hasAncestor(el, SECTIONING) ? null : type;
}

/** A 1x1 image: a tracking pixel or spacer. */
export function isPixel(el: DomElement): boolean {
  return el.attribs['width'] === '1' && el.attribs['height'] === '1';
}

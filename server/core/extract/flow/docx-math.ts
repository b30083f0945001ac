/**
 * Word equations (OMML, <m:oMath>) are dropped by mammoth. Before conversion, each one is replaced
 * by a text run in a private run style holding the formula as TeX-like text; the style map turns
 * that run into <span class="math">, which the HTML extractor reads as an equation (its own block
 * when alone in a paragraph, inline text otherwise). Only documents that contain math are touched.
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import { isElement, isTextNode, type DomElement, type DomNode } from './html-dom.js';
import { readCentralDirectory, readEntry, replaceEntry } from './docx-zip.js';

export const MATH_RUN_STYLE = 'LecternMath';

const OMML_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
/** document.xml is inflated in memory to look for math; beyond this the file is left as it is. */
const MAX_DOCUMENT_XML = 256 * 1024 * 1024;

function local(el: DomElement): string {
  return el.name.slice(el.name.indexOf(':') + 1);
}

function child(el: DomElement, name: string): DomElement | undefined {
  return el.children.find((c): c is DomElement => isElement(c) && local(c) === name);
}

/** m:val of a property such as <m:dPr><m:begChr m:val="["/></m:dPr>, if present. */
function prop(el: DomElement, pr: string, name: string): string | undefined {
  const p = child(el, pr);
  const v = p && child(p, name);
  if (!v) return undefined;
  return Object.entries(v.attribs).find(([k]) => k.endsWith(':val') || k === 'val')?.[1];
}

function part(el: DomElement, name: string): string {
  const c = child(el, name);
  return c ? tex(c) : '';
}

/** OMML -> TeX-like text: structure (fractions, scripts, roots, n-ary operators) kept readable. */
function tex(node: DomNode): string {
  if (isTextNode(node)) return '';
  if (!isElement(node)) return '';
  const el = node;
  const name = local(el);
  if (name.endsWith('Pr')) return ''; // property elements carry formatting only
  switch (name) {
    case 't':
      return DomUtils.textContent(el);
    case 'f':
      return `\\frac{${part(el, 'num')}}{${part(el, 'den')}}`;
    case 'sSup':
      return `{${part(el, 'e')}}^{${part(el, 'sup')}}`;
    case 'sSub':
      return `{${part(el, 'e')}}_{${part(el, 'sub')}}`;
    case 'sSubSup':
      return `{${part(el, 'e')}}_{${part(el, 'sub')}}^{${part(el, 'sup')}}`;
    case 'sPre':
      return `{}_{${part(el, 'sub')}}^{${part(el, 'sup')}}{${part(el, 'e')}}`;
    case 'rad': {
      const deg = part(el, 'deg');
      return deg ? `\\sqrt[${deg}]{${part(el, 'e')}}` : `\\sqrt{${part(el, 'e')}}`;
    }
    case 'd': {
      const beg = prop(el, 'dPr', 'begChr') ?? '(';
      const end = prop(el, 'dPr', 'endChr') ?? ')';
      const sep = prop(el, 'dPr', 'sepChr') ?? '|';
      const items = el.children.filter((c): c is DomElement => isElement(c) && local(c) === 'e').map(tex);
      return `${beg}${items.join(sep)}${end}`;
    }
    case 'nary': {
      const op = prop(el, 'naryPr', 'chr') ?? '∫';
      const sub = part(el, 'sub');
      const sup = part(el, 'sup');
      return `${op}${sub ? `_{${sub}}` : ''}${sup ? `^{${sup}}` : ''} ${part(el, 'e')}`;
    }
    case 'func':
      return `${part(el, 'fName')} ${part(el, 'e')}`;
    case 'limLow':
      return `${part(el, 'e')}_{${part(el, 'lim')}}`;
    case 'limUpp':
      return `${part(el, 'e')}^{${part(el, 'lim')}}`;
    case 'm':
      return `\\begin{matrix}${el.children
        .filter((r): r is DomElement => isElement(r) && local(r) === 'mr')
        .map((r) =>
          r.children
            .filter((c): c is DomElement => isElement(c) && local(c) === 'e')
            .map(tex)
            .join(' & '),
        )
        .join(' \\\\ ')}\\end{matrix}`;
    case 'eqArr':
      return el.children
        .filter((c): c is DomElement => isElement(c) && local(c) === 'e')
        .map(tex)
        .join(' \\\\ ');
    default:
      return el.children.map(tex).join('');
  }
}

/** TeX-like text of an <m:oMath> / <m:oMathPara> XML fragment. */
export function ommlToTex(xml: string): string {
  const doc = parseDocument(xml, { xmlMode: true });
  const maths = DomUtils.findAll((e) => local(e) === 'oMath', doc.children);
  const roots = maths.length > 0 ? maths : doc.children.filter(isElement);
  return roots
    .map((m) => tex(m).replace(/\s+/g, ' ').trim())
    .filter((t) => t !== '')
    .join(' \\\\ ');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function mathRun(texText: string): string {
  return `<w:r><w:rPr><w:rStyle w:val="${MATH_RUN_STYLE}"/></w:rPr><w:t xml:space="preserve">${escapeXml(texText)}</w:t></w:r>`;
}

/** document.xml with every equation replaced by a math-style run (wrapped in a paragraph if needed). */
export function replaceMath(xml: string): string {
  const prefix = new RegExp(`xmlns:(\\w+)="${OMML_NS.replace(/[./]/g, '\\$&')}"`).exec(xml)?.[1] ?? 'm';
  const math = (tag: string): string => `<${prefix}:${tag}\\b[^>]*?(?:/>|>[\\s\\S]*?</${prefix}:${tag}>)`;
  // One scan over paragraph tags and equations, so we know whether an equation sits inside a <w:p>.
  const scan = new RegExp(`<w:p(?=[\\s>/])[^>]*?(/?)>|</w:p>|${math('oMathPara')}|${math('oMath')}`, 'g');
  let depth = 0;
  return xml.replace(scan, (m: string, selfClosing: string | undefined) => {
    if (m.startsWith('<w:p')) {
      if (!selfClosing) depth++;
      return m;
    }
    if (m === '</w:p>') {
      depth = Math.max(0, depth - 1);
      return m;
    }
    const text = ommlToTex(m);
    if (text === '') return '';
    return depth > 0 ? mathRun(text) : `<w:p>${mathRun(text)}</w:p>`;
  });
}

/** The main document part's path, from the package relationships. */
function mainPartName(data: Uint8Array, entries: NonNullable<ReturnType<typeof readCentralDirectory>>): string {
  const rels = readEntry(data, entries, '_rels/.rels', 1024 * 1024);
  const target = rels
    ? /<Relationship\b[^>]*Type="[^"]*\/officeDocument"[^>]*>/.exec(new TextDecoder().decode(rels))?.[0]
    : undefined;
  const path = target ? /Target="\/?([^"]+)"/.exec(target)?.[1] : undefined;
  return path ?? 'word/document.xml';
}

/**
 * The DOCX with its equations turned into math runs, or the input unchanged when it has no
 * equations or cannot be patched (mammoth then reports whatever is wrong with it).
 */
export function preprocessMath(data: Uint8Array): Uint8Array {
  const entries = readCentralDirectory(data);
  if (!entries) return data;
  const name = mainPartName(data, entries);
  const raw = readEntry(data, entries, name, MAX_DOCUMENT_XML);
  if (!raw) return data;
  const xml = new TextDecoder().decode(raw);
  if (!/<\w+:oMath[\s>/]/.test(xml)) return data;
  return replaceEntry(data, entries, name, new TextEncoder().encode(replaceMath(xml)));
}

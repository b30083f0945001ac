/**
 * The HTML walker: a single pass over the htmlparser2 DOM. Inline content accumulates in a pending
 * buffer and block-level elements flush it, so text that sits directly in a <div> or <body> still
 * becomes a paragraph, and the blocks come out in document order.
 */
import { DomUtils } from 'htmlparser2';
import type { ExtractedBlock } from '../types.js';
import {
  BLOCK,
  MEDIA,
  altText,
  codeLanguage,
  furnitureType,
  hasTextAfter,
  isDisplayMath,
  isElement,
  isIgnored,
  isMathElement,
  isPixel,
  isTextNode,
  mathText,
  preText,
  svgText,
  textOf,
  type DomElement,
  type DomNode,
} from './html-dom.js';
import { readTable } from './html-table.js';
import { listMarker } from './list-marker.js';
import { collapseWhitespace, makeBlock, oneLine, tableBlock } from './result.js';

/** An open <li>: its blocks are list items; the first one carries the item's number. */
interface ItemContext {
  indent: number;
  prefix: string;
  emitted: boolean;
}

interface FigureContext {
  block: ExtractedBlock | null;
  caption: string;
}

/** Containers that, inside a list item, continue the item instead of starting a new block. */
const SOFT_IN_ITEM = new Set([
  'p',
  'div',
  'blockquote',
  'dl',
  'dt',
  'dd',
  'address',
  'details',
  'summary',
  'section',
  'article',
  'center',
]);

/** Marks a paragraph boundary inside a list item (U+2029 PARAGRAPH SEPARATOR, which \s matches). */
const SOFT_BREAK = '\u2029';

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

export class HtmlWalker {
  blocks: ExtractedBlock[] = [];
  private parts: string[] = [];
  private listDepth = -1;
  private item: ItemContext | null = null;
  private figure: FigureContext | null = null;

  walkChildren(el: { children: DomNode[] }): void {
    for (const child of el.children) this.walk(child);
  }

  finish(): ExtractedBlock[] {
    this.flush();
    return this.blocks;
  }

  private walk(node: DomNode): void {
    if (isTextNode(node)) {
      this.parts.push(node.data.replace(/\s+/g, ' '));
      return;
    }
    if (!isElement(node) || isIgnored(node)) return;
    const name = node.name;
    if (isMathElement(node)) return this.math(node);
    const level = HEADINGS[name];
    if (level !== undefined) return this.heading(node, level);
    const furniture = furnitureType(node);
    if (furniture) return this.furniture(node, furniture);
    switch (name) {
      case 'br':
        this.parts.push('\n');
        return;
      case 'hr':
        this.flush();
        return;
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        return this.list(node);
      case 'li':
        // An <li> outside any list (sloppy markup): a list item of an implicit outermost list.
        return this.listItem(node, Math.max(this.listDepth, 0), '');
      case 'table':
        return this.table(node);
      case 'pre':
      case 'listing':
      case 'xmp':
      case 'plaintext':
        return this.code(node);
      case 'code':
        // <code> is inline code unless it stands alone and spans lines (a block without <pre>).
        if (this.isStandalone(node) && DomUtils.textContent(node).includes('\n')) return this.code(node);
        return this.walkChildren(node);
      case 'figure':
        return this.figureElement(node);
      case 'figcaption':
      case 'caption':
        return this.caption(node);
      case 'img':
        return this.image(node, altText(node), node.attribs['alt'] === '' || isPixel(node));
      case 'svg':
        return this.image(node, svgText(node), false);
      case 'picture':
        return this.walkChildren(node);
      default:
        break;
    }
    if (!BLOCK.has(name)) return this.walkChildren(node);
    // Generic block container (p, div, section, blockquote...).
    const soft = this.item !== null && SOFT_IN_ITEM.has(name);
    this.boundary(soft);
    this.walkChildren(node);
    this.boundary(soft);
  }

  /** Ends the pending text: a hard boundary flushes it, a soft one (inside an <li>) breaks the line. */
  private boundary(soft: boolean): void {
    if (!soft) return this.flush();
    if (this.parts.length > 0) this.parts.push(SOFT_BREAK);
  }

  private flush(): void {
    // Soft breaks between an item's paragraphs (and the whitespace around them) make one newline.
    const text = collapseWhitespace(this.parts.join('').replace(/\s*\u2029\s*/g, '\n'));
    this.parts = [];
    if (text === '') return;
    if (this.item) {
      // Only the item's first block carries the number; text after a nested list continues it.
      const prefix = this.item.emitted ? '' : this.item.prefix;
      this.item.emitted = true;
      this.blocks.push(makeBlock('list_item', prefix + text, { indent_level: this.item.indent }));
    } else {
      this.blocks.push(makeBlock('paragraph', text));
    }
  }

  private heading(el: DomElement, level: number): void {
    this.flush();
    const text = oneLine(textOf(el));
    if (text !== '') this.blocks.push(makeBlock('heading', text, { heading_level: level }));
  }

  private list(el: DomElement): void {
    this.flush();
    const depth = this.listDepth + 1;
    const saved = { listDepth: this.listDepth, item: this.item };
    this.listDepth = depth;
    const items = el.children.filter((c): c is DomElement => isElement(c) && c.name === 'li');
    const ordered = el.name === 'ol';
    const reversed = ordered && el.attribs['reversed'] !== undefined;
    const start = Number.parseInt(el.attribs['start'] ?? '', 10);
    let n = Number.isFinite(start) ? start : reversed ? items.length : 1;
    for (const child of el.children) {
      if (isElement(child) && child.name === 'li') {
        const value = Number.parseInt(child.attribs['value'] ?? '', 10);
        if (ordered && Number.isFinite(value)) n = value;
        const prefix = ordered ? `${listMarker(n, child.attribs['type'] ?? el.attribs['type'])}. ` : '';
        this.listItem(child, depth, prefix);
        n += reversed ? -1 : 1;
      } else {
        // Stray content between items (e.g. a nested <ul> placed directly in a <ul>).
        this.item = null;
        this.walk(child);
        this.flush();
      }
    }
    this.listDepth = saved.listDepth;
    this.item = saved.item;
  }

  private listItem(li: DomElement, indent: number, prefix: string): void {
    this.flush();
    const saved = this.item;
    this.item = { indent, prefix, emitted: false };
    this.walkChildren(li);
    this.flush();
    this.item = saved;
  }

  private table(el: DomElement): void {
    this.flush();
    const { rows, headerRows, captions } = readTable(el, (cell) => oneLine(textOf(cell)));
    for (const caption of captions) this.caption(caption);
    if (rows.every((row) => row.every((cell) => cell === ''))) return; // spacer / empty layout table
    const block = tableBlock(rows, headerRows);
    if (block) this.blocks.push(block);
  }

  private code(el: DomElement): void {
    this.flush();
    const text = preText(el);
    if (text.trim() === '') return;
    this.blocks.push(makeBlock('code', text, { language: codeLanguage(el) }));
  }

  private caption(el: DomElement): void {
    this.flush();
    const text = oneLine(textOf(el));
    if (text === '') return;
    const fig = this.figure;
    if (fig) {
      fig.caption = text;
      // Caption after the image: an image without alt text is described by its caption.
      if (fig.block && fig.block.text === '') fig.block.text = text;
    }
    this.blocks.push(makeBlock('caption', text));
  }

  private figureElement(el: DomElement): void {
    this.flush();
    const hasMedia = DomUtils.existsOne((e) => MEDIA.has(e.name) || isMathElement(e), el.children);
    if (!hasMedia) {
      // <figure> used for code listings, quotes or tables: those blocks, plus the caption.
      this.walkChildren(el);
      this.flush();
      return;
    }
    const saved = this.figure;
    const captionEl = DomUtils.findOne((e) => e.name === 'figcaption', el.children);
    this.figure = { block: null, caption: captionEl ? oneLine(textOf(captionEl)) : '' };
    this.walkChildren(el);
    this.flush();
    this.figure = saved;
  }

  private image(el: DomElement, alt: string, decorative: boolean): void {
    const fig = this.figure;
    if (fig) {
      // All images of one <figure> make one figure block (a figure is one unit for the reviewer).
      if (fig.block) {
        if (alt !== '') fig.block.text = oneLine(`${fig.block.text} ${alt}`);
      } else {
        this.flush();
        fig.block = makeBlock('figure', alt !== '' ? alt : fig.caption);
        this.blocks.push(fig.block);
      }
      return;
    }
    if (decorative) return; // alt="" marks an image as decoration; 1x1 images are trackers
    if (!this.isStandalone(el)) {
      // An icon or inline picture inside a sentence: its alt text is part of the sentence.
      if (alt !== '') this.parts.push(` ${alt} `);
      return;
    }
    this.flush();
    this.blocks.push(makeBlock('figure', alt));
  }

  private math(el: DomElement): void {
    const tex = mathText(el);
    if (tex === '') return;
    if (!isDisplayMath(el) && !this.isStandalone(el)) {
      this.parts.push(` ${tex} `);
      return;
    }
    this.flush();
    this.blocks.push(makeBlock('equation', tex));
  }

  private furniture(el: DomElement, type: 'header' | 'footer'): void {
    this.flush();
    // Page furniture becomes one block per element: a nav bar's twenty links are one thing to skip.
    const saved = { blocks: this.blocks, item: this.item, listDepth: this.listDepth, figure: this.figure };
    this.blocks = [];
    this.item = null;
    this.listDepth = -1;
    this.figure = null;
    this.walkChildren(el);
    this.flush();
    const text = this.blocks
      .map((b) => b.text)
      .filter((t) => t !== '')
      .join('\n');
    Object.assign(this, saved);
    if (text !== '') this.blocks.push(makeBlock(type, text));
  }

  /** Alone in its block: no pending text before it and no text after it up to the next block. */
  private isStandalone(el: DomElement): boolean {
    return collapseWhitespace(this.parts.join('')) === '' && !hasTextAfter(el);
  }
}

/**
 * Markdown -> blocks, from marked's token tree (no HTML rendering in between, so nothing is lost to
 * a renderer's choices). Raw HTML blocks go through the HTML extractor.
 */
import type { Token, Tokens } from 'marked';
import type { ExtractedBlock, ExtractionResult } from '../types.js';
import { htmlBlocks } from './html.js';
import { imagesOnly, inlineText, markdownLexer, stripFrontMatter } from './markdown-inline.js';
import { collapseWhitespace, firstH1, makeBlock, makeFlowResult, oneLine, tableBlock } from './result.js';
import { extractText } from './text.js';

/** Fenced code in these languages is display math (GitHub and GitLab render ```math blocks). */
const MATH_LANGUAGES = new Set(['math', 'latex-math', 'katex', 'tex-math']);

class MarkdownWalker {
  readonly blocks: ExtractedBlock[] = [];

  tokens(tokens: readonly Token[], listDepth: number): void {
    for (const t of tokens) this.token(t, listDepth);
  }

  private push(block: ExtractedBlock): void {
    this.blocks.push(block);
  }

  private token(t: Token, listDepth: number): void {
    switch (t.type) {
      case 'space':
      case 'hr':
      case 'def':
        return;
      case 'heading': {
        const h = t as Tokens.Heading;
        const text = oneLine(inlineText(h.tokens));
        if (text !== '') this.push(makeBlock('heading', text, { heading_level: Math.min(Math.max(h.depth, 1), 6) }));
        return;
      }
      case 'paragraph':
      case 'text':
        return this.paragraph(t as Tokens.Paragraph);
      case 'code': {
        const c = t as Tokens.Code;
        const lang =
          (c.lang ?? '')
            .trim()
            .split(/\s+/)[0]
            ?.replace(/^\{?\.?|\}$/g, '')
            .toLowerCase() ?? '';
        if (MATH_LANGUAGES.has(lang)) {
          if (c.text.trim() !== '') this.push(makeBlock('equation', c.text.trim()));
          return;
        }
        if (c.text.trim() !== '') this.push(makeBlock('code', c.text.replace(/\s+$/, ''), { language: lang }));
        return;
      }
      case 'blockMath': {
        const tex = String((t as Tokens.Generic)['text']).trim();
        if (tex !== '') this.push(makeBlock('equation', tex));
        return;
      }
      case 'table':
        return this.table(t as Tokens.Table);
      case 'blockquote':
        // Quotes are ordinary content for a reviewer: their paragraphs, lists, code... as usual.
        return this.tokens((t as Tokens.Blockquote).tokens, listDepth);
      case 'list':
        return this.list(t as Tokens.List, listDepth + 1);
      case 'html':
        for (const block of htmlBlocks(String(t.text)).blocks) {
          // Lists inside an HTML block nest under the Markdown list they appear in.
          if (block.type === 'list_item' && listDepth >= 0)
            block.indent_level = (block.indent_level ?? 0) + listDepth + 1;
          this.push(block);
        }
        return;
      default: {
        // Tokens from future marked versions: keep their text rather than dropping it.
        const g = t as Tokens.Generic;
        if (g.tokens) return this.tokens(g.tokens, listDepth);
        const text = typeof g['text'] === 'string' ? collapseWhitespace(g['text']) : '';
        if (text !== '') this.push(makeBlock('paragraph', text));
        return;
      }
    }
  }

  private paragraph(p: Tokens.Paragraph | Tokens.Text): void {
    const tokens = p.tokens ?? [];
    const images = imagesOnly(tokens);
    if (images) {
      for (const image of images) this.push(makeBlock('figure', oneLine(image.alt)));
      return;
    }
    const text = collapseWhitespace(p.tokens ? inlineText(p.tokens) : String(p.text));
    if (text !== '') this.push(makeBlock('paragraph', text));
  }

  private table(t: Tokens.Table): void {
    const cell = (c: Tokens.TableCell): string => oneLine(inlineText(c.tokens));
    const rows = [t.header.map(cell), ...t.rows.map((row) => row.map(cell))];
    const block = tableBlock(rows, 1);
    if (block) this.push(block);
  }

  private list(list: Tokens.List, depth: number): void {
    const start = list.ordered && typeof list.start === 'number' ? list.start : 1;
    list.items.forEach((item, i) => {
      // Ordered items keep their rendered number (see list-marker.ts); task items their checkbox.
      let prefix = list.ordered ? `${start + i}. ` : '';
      if (item.task) prefix += item.checked ? '[x] ' : '[ ] ';
      let parts: string[] = [];
      let emitted = false;
      const flush = (): void => {
        const text = collapseWhitespace(parts.join('\n'));
        parts = [];
        if (text === '') return;
        this.push(makeBlock('list_item', (emitted ? '' : prefix) + text, { indent_level: depth }));
        emitted = true;
      };
      for (const t of item.tokens) {
        if (t.type === 'text' || t.type === 'paragraph') {
          parts.push(inlineText(t.tokens ?? []) || String(t.text ?? ''));
        } else if (t.type === 'space') {
        } else {
          flush();
          this.token(t, depth);
        }
      }
      flush();
    });
  }
}

export function extractMarkdown(md: string): ExtractionResult {
  const { body, title } = stripFrontMatter(md.replace(/\r\n?/g, '\n'));
  const walker = new MarkdownWalker();
  try {
    walker.tokens(markdownLexer.lexer(body), -1);
  } catch (err) {
    // marked recurses per nesting level; absurd nesting (thousands of `>` or list levels) overflows
    // the stack. The document is still text: read it as such rather than failing the job.
    if (!(err instanceof RangeError)) throw err;
    const fallback = extractText(body);
    return makeFlowResult('markdown', fallback.blocks, title ?? fallback.title, [
      'Markdown nesting too deep to parse; the document was read as plain text',
    ]);
  }
  return makeFlowResult('markdown', walker.blocks, title ?? firstH1(walker.blocks), []);
}

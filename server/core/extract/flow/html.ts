/**
 * HTML -> blocks (see html-walker.ts for the rules). Also the second half of the DOCX extractor
 * (mammoth's HTML) and of Markdown's raw HTML blocks.
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import type { ExtractedBlock, ExtractionResult } from '../types.js';
import { clampDepth, hasAncestor } from './html-dom.js';
import { HtmlWalker } from './html-walker.js';
import { firstH1, makeFlowResult, oneLine } from './result.js';

/**
 * Deeper elements are read as plain text. The walker recurses, and broken markup (thousands of
 * unclosed <font> or <div> tags, which the parser nests) would otherwise overflow the stack.
 */
const MAX_DEPTH = 256;

/** Blocks of an HTML fragment or document, without the result envelope (Markdown embeds HTML). */
export function htmlBlocks(html: string): { blocks: ExtractedBlock[]; title: string | undefined } {
  const doc = parseDocument(html);
  clampDepth(doc, MAX_DEPTH);
  const walker = new HtmlWalker();
  walker.walkChildren(doc);
  const blocks = walker.finish();
  const titleEl = DomUtils.findOne(
    (e) => e.name === 'title' && !hasAncestor(e, new Set(['svg', 'math'])),
    doc.children,
  );
  const title = titleEl ? oneLine(DomUtils.textContent(titleEl)) : '';
  return { blocks, title: title !== '' ? title : firstH1(blocks) };
}

export function extractHtml(html: string): ExtractionResult {
  const { blocks, title } = htmlBlocks(html);
  return makeFlowResult('html', blocks, title, []);
}

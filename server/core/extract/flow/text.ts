/**
 * Plain text -> blocks, by the conventions people use in .txt files: blank lines between
 * paragraphs, `-`/`*`/`1.` list lines, `====`/`----` underlines or ALL CAPS lines for headings, and
 * indented runs for code. Hard-wrapped lines of a paragraph are joined with spaces, as a renderer
 * reflows them.
 */
import type { ExtractedBlock, ExtractionResult } from '../types.js';
import { collapseWhitespace, firstH1, makeBlock, makeFlowResult } from './result.js';

/** A list line: its indentation, marker and text. Numbers/letters need `.`/`)` and a space after. */
const LIST_LINE = /^([ \t]*)([-*+•◦▪‣∙–]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\([ivx]{1,5}\))[ \t]+(\S.*)$/;
const NUMBERED = /^\(?(?:\d{1,3}|[a-z]|[ivx]{1,5})[.)]$/;
const UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const RULE = /^ {0,3}(?:([-=_*~])[ \t]*){3,}$/;

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** Leading whitespace width in columns, a tab counting as a move to the next multiple of 4. */
function indentWidth(line: string): number {
  let col = 0;
  for (const ch of line) {
    if (ch === ' ') col++;
    else if (ch === '\t') col += 4 - (col % 4);
    else break;
  }
  return col;
}

/**
 * A heading written in capitals: short, several letters, no lowercase, not ending like a sentence.
 * Section numbers ("2.1 SCOPE") are fine; a lone word like "OK." is not a heading.
 */
function isCapsHeading(text: string): boolean {
  if (text.length > 80 || /[.,;!?]$/.test(text)) return false;
  const letters = text.match(/\p{L}/gu) ?? [];
  if (letters.length < 3 || /\p{Ll}/u.test(text)) return false;
  return text.split(/\s+/).length <= 12;
}

function dedent(lines: string[]): string {
  const expanded = lines.map((l) => l.replace(/^[ \t]+/, (ws) => ' '.repeat(indentWidth(ws))));
  const min = Math.min(...expanded.filter((l) => !isBlank(l)).map((l) => indentWidth(l)));
  return expanded
    .map((l) => l.slice(min).trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

interface OpenItem {
  indent: number;
  level: number;
  lines: string[];
}

class TextWalker {
  readonly blocks: ExtractedBlock[] = [];
  private para: string[] = [];
  private item: OpenItem | null = null;
  /** Indentations of the open list levels, outermost first. */
  private listIndents: number[] = [];
  private code: string[] = [];

  run(lines: string[]): void {
    let prevBlank = true;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const next = lines[i + 1];
      if (isBlank(line)) {
        // An open list item stays open: an indented paragraph after the blank line may continue it.
        if (this.code.length > 0) this.code.push('');
        else this.flushPara();
        prevBlank = true;
        continue;
      }
      const indent = indentWidth(line);
      const text = line.trim();
      const blankBefore = prevBlank;
      prevBlank = false;
      if (this.code.length > 0) {
        if (indent >= 4) {
          this.code.push(line);
          continue;
        }
        this.flushCode();
      }
      const list = LIST_LINE.exec(line);
      if (this.item && blankBefore && !list && indent <= this.item.indent) {
        // Back at the list's margin after a blank line: the list is over.
        this.flushItem();
        this.listIndents = [];
      }
      const inList = this.listIndents.length > 0;
      // Heading underlined with ==== or ----: the line above is the heading.
      if (
        !list &&
        indent < 4 &&
        this.para.length === 0 &&
        !this.item &&
        next !== undefined &&
        UNDERLINE.test(next) &&
        (next.trim().length >= 3 || next.trim().length >= text.length)
      ) {
        this.heading(text, next.trim().startsWith('=') ? 1 : 2);
        i++;
        continue;
      }
      if (RULE.test(line)) {
        this.flushText();
        continue;
      }
      const isolated = blankBefore && (next === undefined || isBlank(next));
      if (
        indent < 4 &&
        this.para.length === 0 &&
        !inList &&
        isCapsHeading(text) &&
        (!list || (isolated && NUMBERED.test(list[2] ?? '')))
      ) {
        // "1. INTRODUCTION" alone between blank lines is a numbered heading, not a one-item list.
        const nextIsCaps = next !== undefined && !isBlank(next) && isCapsHeading(next.trim());
        if (!nextIsCaps) {
          this.heading(text, 1);
          continue;
        }
      }
      if (list && (indent < 4 || inList)) {
        this.flushPara();
        this.flushItem();
        this.openItem(list, indent);
        continue;
      }
      if (this.item) {
        // Wrapped item text (no blank line before), or an indented paragraph belonging to the item.
        this.item.lines.push(blankBefore ? `\n${text}` : text);
        continue;
      }
      if (indent >= 4 && this.para.length === 0) {
        this.code.push(line);
        continue;
      }
      this.para.push(text);
    }
    this.flushCode();
    this.flushText();
  }

  private openItem(match: RegExpExecArray, indent: number): void {
    while (this.listIndents.length > 0 && (this.listIndents[this.listIndents.length - 1] ?? 0) > indent)
      this.listIndents.pop();
    if (this.listIndents.length === 0 || (this.listIndents[this.listIndents.length - 1] ?? 0) < indent)
      this.listIndents.push(indent);
    const marker = match[2] ?? '';
    // Bullets are dropped; numbers and letters stay, as in the other flow formats (list-marker.ts).
    const first = /^[-*+•◦▪‣∙–]$/.test(marker) ? (match[3] ?? '') : `${marker} ${match[3] ?? ''}`;
    this.item = { indent, level: this.listIndents.length - 1, lines: [first] };
  }

  private heading(text: string, level: number): void {
    this.flushText();
    this.listIndents = [];
    this.blocks.push(makeBlock('heading', collapseWhitespace(text), { heading_level: level }));
  }

  private flushPara(): void {
    if (this.para.length === 0) return;
    const text = collapseWhitespace(this.para.join(' '));
    this.para = [];
    if (text !== '') this.blocks.push(makeBlock('paragraph', text));
  }

  private flushItem(): void {
    if (!this.item) return;
    const text = collapseWhitespace(this.item.lines.join(' ').replace(/ \n/g, '\n'));
    this.blocks.push(makeBlock('list_item', text, { indent_level: this.item.level }));
    this.item = null;
  }

  private flushText(): void {
    this.flushPara();
    this.flushItem();
  }

  private flushCode(): void {
    if (this.code.length === 0) return;
    const text = dedent(this.code);
    this.code = [];
    if (text.trim() !== '') this.blocks.push(makeBlock('code', text));
  }
}

export function extractText(text: string): ExtractionResult {
  // Form feeds (page breaks in printed text) separate paragraphs like blank lines do.
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .split('\n');
  const walker = new TextWalker();
  walker.run(lines);
  return makeFlowResult('text', walker.blocks, firstH1(walker.blocks), []);
}

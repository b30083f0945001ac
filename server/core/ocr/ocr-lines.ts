/**
 * Tesseract's result (blocks > paragraphs > lines > words, pixel boxes, 0..100 confidences) flattened into
 * cleaned lines: the words OCR made up from rules, box edges and specks are dropped here so that neither the
 * text nor the confidence of a block carries them.
 */

/** The parts of tesseract.js's JSON we read (structural, so a minor tesseract.js change fails typecheck here). */
export interface TessBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface TessWord {
  text: string;
  confidence: number;
  bbox: TessBox;
}
export interface TessLine {
  words: TessWord[];
  bbox: TessBox;
}
export interface TessParagraph {
  lines: TessLine[];
}
export interface TessBlock {
  paragraphs: TessParagraph[];
}

export interface OcrWord extends TessBox {
  text: string;
  conf: number;
}

export interface OcrLine extends TessBox {
  words: OcrWord[];
  text: string;
  /** Mean word confidence. */
  conf: number;
  /** Text size in px: the 90th percentile of word heights (ascender to descender in a line of any length; robust to skew, unlike the line box). */
  size: number;
  /** Running number of tesseract's paragraph, to keep its grouping where nothing says otherwise. */
  para: number;
  /** Running number of tesseract's block (for putting its block order right, see ocr-reading-order.ts). */
  block: number;
}

/** Table rules and box edges come out as these; they are never text on their own or at a word's edge. */
const RULE_CHARS = /^[|[\]{}_=~—–-]+$/;
const EDGE_BARS = /^\|+|\|+$/g;
const ALNUM = /[\p{L}\p{N}]/u;

/**
 * Below this mean confidence a line is noise read as text (a rule, a photo's texture): on the fixtures such
 * lines sat at 0..20 while the worst real lines (degraded table cells) stayed above 40.
 */
const MIN_LINE_CONF = 25;

/** Navigation dots (beamer's mini-frames), bullets in a row and similar marks read as strings of 0, o and 8. */
const DOTS = /^[0oO8°]+$/;

function isDotRow(words: readonly OcrWord[]): boolean {
  return words.every((w) => DOTS.test(w.text)) && words.some((w) => w.text.length >= 4);
}

/**
 * One or two letters on a line of their own, read unsure, or standing right of every other line of their
 * tesseract block: a stray mark or a margin symbol, not text. Digits are kept (folios, footnote marks).
 */
function isStrayMark(line: OcrLine, others: readonly OcrLine[]): boolean {
  if (line.text.length > 2 || /\d/.test(line.text)) return false;
  return line.conf < 50 || (others.length > 0 && others.every((o) => o.x1 < line.x0));
}

/**
 * A sign standing between two words of a line, about a letter wide: an operator of a formula or of code
 * (`n = 120`, `1 - alpha`, `for _ in`, `f() { return`), not a rule or a box edge, which run along a row
 * or close a line. Bars and square brackets on their own are left out: between cells they are box edges.
 */
const OPERATOR = /^(?:[=~_{}—–-]|==|--|=-|-=)$/;

function isOperator(words: readonly TessWord[], i: number, size: number): boolean {
  const w = words[i] as TessWord;
  if (i === 0 || i === words.length - 1 || !OPERATOR.test(w.text.trim())) return false;
  return w.bbox.x1 - w.bbox.x0 <= 1.5 * size && w.confidence >= 30;
}

/** `before` and `after`: the text of the line's other words on either side, for brackets that close there. */
function cleanWord(w: TessWord, before: string, after: string): OcrWord | null {
  let text = w.text.replace(EDGE_BARS, '');
  // A bracket left over from a cell's edge ("[gnu"), but not one that belongs to the word ("[1]", "(a)")
  // or that the line closes later ("[0.31, 0.51]", "[alpha / 2, 1 - alpha / 2]").
  if (/^\[[^\]]*$/.test(text) && !after.includes(']')) text = text.slice(1);
  if (/^[^[]*\]$/.test(text) && !before.includes('[')) text = text.slice(0, -1);
  // Likewise an unsure opening quote that nothing closes ("‘Inputs"): a speck before the word.
  if (w.confidence < 50 && /^[‘'"“][^’'"”]+$/.test(text)) text = text.slice(1);
  text = text.trim();
  if (!text || RULE_CHARS.test(text)) return null;
  if (w.confidence < 10 && !ALNUM.test(text)) return null;
  return { text, conf: w.confidence, ...w.bbox };
}

/** A line's words cleaned (see cleanWord), operators between words kept. */
function cleanLine(words: readonly TessWord[]): OcrWord[] {
  const size = percentile(
    words.map((w) => w.bbox.y1 - w.bbox.y0).sort((a, b) => a - b),
    0.9,
  );
  const texts = words.map((w) => w.text);
  const out: OcrWord[] = [];
  for (const [i, w] of words.entries()) {
    const word = isOperator(words, i, size)
      ? { text: w.text.trim(), conf: w.confidence, ...w.bbox }
      : cleanWord(w, texts.slice(0, i).join(' '), texts.slice(i + 1).join(' '));
    if (word) out.push(word);
  }
  return out;
}

/**
 * Chinese and Japanese are written without spaces, but tesseract hands every character (or run) over as a
 * word of its own: no space goes between two such words, or "年度报告" would read "年 度 报告" (and neither
 * search nor the language detector would know the words).
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

export function spaceBetween(before: string, after: string): string {
  return CJK.test(before.slice(-1)) && CJK.test(after.slice(0, 1)) ? '' : ' ';
}

/** Words (or lines) joined as the script writes them: with spaces, except between CJK characters. */
export function joinWords(parts: readonly string[]): string {
  let out = '';
  for (const p of parts) out = out ? out + spaceBetween(out, p) + p : p;
  return out;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export function flattenLines(blocks: readonly TessBlock[]): OcrLine[] {
  const out: OcrLine[] = [];
  let para = 0;
  for (const [block, tb] of blocks.entries()) {
    const inBlock: OcrLine[] = [];
    for (const p of tb.paragraphs) {
      para++;
      for (const l of p.lines) {
        const words = cleanLine(l.words);
        if (words.length === 0 || isDotRow(words)) continue;
        const conf = words.reduce((s, w) => s + w.conf, 0) / words.length;
        if (conf < MIN_LINE_CONF) continue;
        const heights = words.map((w) => w.y1 - w.y0).sort((a, b) => a - b);
        inBlock.push({
          words,
          text: joinWords(words.map((w) => w.text)),
          conf,
          size: percentile(heights, 0.9),
          para,
          block,
          x0: Math.min(...words.map((w) => w.x0)),
          y0: Math.min(...words.map((w) => w.y0)),
          x1: Math.max(...words.map((w) => w.x1)),
          y1: Math.max(...words.map((w) => w.y1)),
        });
      }
    }
    out.push(
      ...inBlock.filter(
        (l) =>
          !isStrayMark(
            l,
            inBlock.filter((o) => o !== l),
          ),
      ),
    );
  }
  return out;
}

/** The page's body text size: median line size over lines with some substance. */
export function bodySize(lines: readonly OcrLine[]): number {
  const sizes = lines.filter((l) => l.text.length >= 3).map((l) => l.size);
  const all = (sizes.length ? sizes : lines.map((l) => l.size)).sort((a, b) => a - b);
  return percentile(all, 0.5) || 1;
}

export function meanConfidence(words: readonly OcrWord[]): number {
  if (words.length === 0) return 0;
  return Math.round((words.reduce((s, w) => s + w.conf, 0) / words.length) * 10) / 10;
}

export function unionBox(boxes: readonly TessBox[]): TessBox {
  return {
    x0: Math.min(...boxes.map((b) => b.x0)),
    y0: Math.min(...boxes.map((b) => b.y0)),
    x1: Math.max(...boxes.map((b) => b.x1)),
    y1: Math.max(...boxes.map((b) => b.y1)),
  };
}

/**
 * Cells of a line: words split wherever the gap is wider than 0.8 of the text size (word spaces are about a
 * third of it), as the PDF extractor does with text runs.
 */
export function lineCells(line: OcrLine): OcrWord[][] {
  const cells: OcrWord[][] = [];
  let cur: OcrWord[] = [];
  for (const w of line.words) {
    const prev = cur[cur.length - 1];
    if (prev && w.x0 - prev.x1 > 0.8 * line.size) {
      cells.push(cur);
      cur = [];
    }
    cur.push(w);
  }
  if (cur.length) cells.push(cur);
  return cells;
}

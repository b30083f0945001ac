/**
 * Splitting one region's lines into draft blocks (paragraphs, list items, captions, code, math).
 *
 * A new block starts at a vertical gap well above the line spacing, at a change of font size,
 * family class (monospace / math) or weight, at a list marker or caption label, and at a first-line
 * indent. Justified text whose line ends short after a full stop also ends a paragraph there
 * (styles without indents, like JSS).
 */
import { isMathLine, isNumberLine } from './lines.js';
import type { Line } from './model.js';

export interface SegmentContext {
  bodySize: number;
  /** Baseline-to-baseline distance of body text. */
  leading: number;
  colLeft: number;
  colRight: number;
  /** Most lines end at colRight (justified text), so a short line is telling. */
  justified: boolean;
}

export interface ListMarker {
  marker: string;
  /** Whether the marker is a symbol (dropped from the text) rather than a number/letter (kept). */
  bullet: boolean;
  /** Where the item's text starts: continuation lines hang there. */
  textX: number;
}

export interface DraftBlock {
  lines: Line[];
  /** Lines ending at the justified right edge: prose, even when set in typewriter type. */
  flush: number;
  list?: ListMarker;
  caption?: boolean;
  /** Hanging indent (description lists, bibliographies): where continuation lines start. */
  hang?: number;
}

const BULLET_RE = /^([•◦▪▫‣⁃∙·●○■□►▸▹▶➢➤✓✔✗★☐–—*+∗-])\s+(?=\S)/u;
const ENUM_RE =
  /^(\(?\d{1,3}[.)]|\[\d{1,3}\]|\(?[a-z][.)]|\([a-z]\)|\(?[ivx]{1,5}[.)]|\([ivx]{1,5}\)|[A-Z]\))\s+(?=\S)/;
const CAPTION_RE =
  /^(?:figure|fig\.?|table|tab\.|listing|algorithm|exhibit|chart|plate|scheme|abbildung|abb\.|tabelle)\s*(?:[A-Z]?\d+(?:[.\-–]\d+)*[a-z]?|[IVXLC]+)\s*(?:[:.—–|]|$)/i;
const CAPTION_LOOSE_RE = /^(?:figure|fig\.?|table|tab\.)\s*\d+/i;

export function listMarker(line: Line): ListMarker | null {
  const m = BULLET_RE.exec(line.text) ?? ENUM_RE.exec(line.text);
  if (!m || m[1] === undefined) {
    // A bare number standing apart from its text (slides' numbered balls, some enumerate styles).
    const first = line.runs[0];
    const second = line.runs[1];
    if (
      first &&
      second &&
      /^\d{1,2}$/.test(first.text.trim()) &&
      /^\p{L}/u.test(second.text.trim()) &&
      second.x0 - first.x1 >= 0.7 * line.size
    ) {
      return { marker: first.text.trim(), bullet: false, textX: second.x0 };
    }
    return null;
  }
  const marker = m[1];
  const bullet = BULLET_RE.test(line.text);
  const first = line.runs[0];
  const second = line.runs[1];
  let textX = line.x0;
  if (first && second && first.text.trim() === marker) {
    textX = second.x0;
  } else if (first) {
    const frac = Math.min(1, m[0].length / Math.max(1, first.text.length));
    textX = first.x0 + frac * (first.x1 - first.x0);
  }
  return { marker, bullet, textX };
}

/** A raised number or mark opening a line (∗ This file..., ² User feedback...): a footnote. */
function footnoteStart(line: Line): boolean {
  const first = line.runs[0];
  const next = line.runs[1];
  if (!first || !next || !/^(?:\d{1,3}|[*∗†‡§¶])$/.test(first.text.trim())) return false;
  return first.size < 0.85 * next.size && next.y - first.y > 0.2 * next.size;
}

/** Caption labels: "Table 3:", "Figure 2.", "Fig. 1" (a bare "Fig. 1 shows" only when bold). */
export function isCaptionStart(line: Line): boolean {
  if (CAPTION_RE.test(line.text)) return true;
  return CAPTION_LOOSE_RE.test(line.text) && (line.runs[0]?.bold ?? false);
}

const SECTION_NUMBER_RE = /^(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+)\s+\p{L}/u;

const MONO = 0.6;
const BOLD = 0.9;

function expectedLeading(line: Line, ctx: SegmentContext): number {
  const scaled = ctx.bodySize > 0 ? (ctx.leading * line.size) / ctx.bodySize : 1.2 * line.size;
  return Math.min(1.7 * line.size, Math.max(1.0 * line.size, scaled));
}

function centred(line: Line, ctx: SegmentContext): boolean {
  const mid = (ctx.colLeft + ctx.colRight) / 2;
  return Math.abs((line.x0 + line.x1) / 2 - mid) < 0.8 * line.size && line.x0 > ctx.colLeft + line.size;
}

function continues(block: DraftBlock, prev: Line, line: Line, ctx: SegmentContext): boolean {
  const dy = line.y - prev.y;
  const size = Math.max(prev.size, line.size);
  const both = (f: (l: Line) => boolean): boolean => f(prev) === f(line);
  // A listing continues a listing; a paragraph that took in a line of inline code does not go on
  // into a listing that follows it.
  const prose = (block.lines[0]?.mono ?? 0) < MONO;
  const code = prev.mono >= MONO && line.mono >= MONO && !prose;
  // Blank lines inside code listings are part of the listing up to a point.
  const gapLimit = (code ? 2.2 : 1.45) * expectedLeading(prev, ctx);
  if (dy > gapLimit) return false;
  if (Math.abs(prev.size - line.size) > 0.08 * size) return false;
  if (!both((l) => l.mono >= MONO) || (prose && line.mono >= MONO)) {
    // Inline code can fill most of a short line inside a paragraph ("longtable."); only a line
    // set apart by space or indentation starts or ends a listing.
    const codeLine = prev.mono >= MONO ? prev : line;
    const home = block.list?.textX ?? block.hang ?? ctx.colLeft;
    const apart = dy > 1.15 * expectedLeading(prev, ctx) || codeLine.x0 > Math.max(home, ctx.colLeft) + 0.5 * size;
    if (apart) return false;
  }
  const mathish = (l: Line): boolean => isMathLine(l) || isNumberLine(l);
  const math = mathish(prev) && mathish(line) && (isMathLine(prev) || isMathLine(line));
  // Numerators, denominators and aligned rows of one display sit closer or farther apart than
  // text lines; they stay together up to about two lines of space.
  if (math) return dy <= 2 * expectedLeading(prev, ctx);
  if (!both(isMathLine) || !both((l) => l.bold >= BOLD)) return false;
  const boldPair = prev.bold >= BOLD && line.bold >= BOLD;
  // Consecutive bold headings ("2 Multilingual bibliographies" / "2.1 Available packages").
  if (boldPair && SECTION_NUMBER_RE.test(line.text)) return false;
  if (code) return true;
  // "... shown in" / "Figure 1." or "... in version" / "2. The": a label that merely wraps to
  // the start of a line inside a running sentence does not open a caption or a list item.
  const midSentence =
    !/[.!?:;)\]]["”’]?$/.test(prev.text) && dy <= 1.15 * expectedLeading(prev, ctx) && line.x0 <= prev.x0 + 1;
  const marker = listMarker(line);
  if (marker && (marker.bullet || block.list || !midSentence)) return false;
  if (footnoteStart(line)) return false;
  if (isCaptionStart(line) && !midSentence) return false;
  if (block.list) {
    // Continuation lines hang at the item's text; going back left ends the item.
    return line.x0 >= block.list.textX - 0.6 * line.size;
  }
  if (block.hang !== undefined) return line.x0 >= block.hang - 0.6 * line.size;
  // A first line at the margin and a second one indented: a hanging paragraph (description
  // item, reference), not a new indented paragraph.
  if (
    block.lines.length === 1 &&
    Math.abs(prev.x0 - ctx.colLeft) <= 1 &&
    line.x0 > prev.x0 + 0.8 * line.size &&
    line.x0 <= prev.x0 + 3.5 * line.size &&
    !(centred(prev, ctx) && centred(line, ctx))
  ) {
    block.hang = line.x0;
    return true;
  }
  const indent = line.size * 0.8;
  // (Wrapped headings hang their second line under the title, after the number.)
  if (
    !boldPair &&
    line.x0 > prev.x0 + indent &&
    line.x0 > ctx.colLeft + indent &&
    !(centred(prev, ctx) && centred(line, ctx))
  ) {
    return false;
  }
  // Justified text: a short line ending a sentence after a full-width one ends the paragraph.
  const width = ctx.colRight - ctx.colLeft;
  const before = block.lines[block.lines.length - 2];
  if (
    before &&
    ctx.justified &&
    width > 10 * ctx.bodySize &&
    before.x1 >= ctx.colRight - 0.5 * size &&
    prev.x1 < ctx.colRight - 0.12 * width &&
    /[.:!?]["”’)]?$/.test(prev.text) &&
    /^[\p{Lu}\d"“‘(]/u.test(line.text) &&
    Math.abs(line.x0 - ctx.colLeft) < 0.5 * size
  ) {
    return false;
  }
  return true;
}

export function segmentLines(lines: Line[], ctx: SegmentContext): DraftBlock[] {
  const blocks: DraftBlock[] = [];
  let cur: DraftBlock | undefined;
  for (const line of lines) {
    const prev = cur?.lines[cur.lines.length - 1];
    const flush = ctx.justified && line.x1 >= ctx.colRight - 1 ? 1 : 0;
    if (cur && prev && continues(cur, prev, line, ctx)) {
      cur.lines.push(line);
      cur.flush += flush;
      continue;
    }
    cur = { lines: [line], flush };
    if (line.mono < MONO && !isMathLine(line)) {
      // (A list or caption label only counts where the line opens a block.)
      const marker = listMarker(line);
      if (marker) cur.list = marker;
      else if (isCaptionStart(line)) cur.caption = true;
    }
    blocks.push(cur);
  }
  return blocks;
}

/** Most common rounded value (ties: smallest); used for column edges. */
export function mode(values: number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(Math.round(v), (counts.get(Math.round(v)) ?? 0) + 1);
  let best: number | undefined;
  let bestN = 0;
  for (const [v, n] of counts) {
    if (n > bestN || (n === bestN && best !== undefined && v < best)) {
      best = v;
      bestN = n;
    }
  }
  return best;
}

/**
 * Splitting one region's lines into draft blocks (paragraphs, list items, captions, code, math).
 *
 * A new block starts at a vertical gap well above the line spacing, at a change of font size,
 * family class (monospace / math) or weight, at a list marker or caption label, and at a first-line
 * indent. Justified text whose line ends short after a full stop also ends a paragraph there
 * (styles without indents, like JSS).
 */
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
  list?: ListMarker;
  caption?: boolean;
}

const BULLET_RE = /^([•◦▪▫‣⁃∙·●○■□►▸▹▶➢➤✓✔✗★☐–—*+∗-])\s+(?=\S)/u;
const ENUM_RE =
  /^(\(?\d{1,3}[.)]|\[\d{1,3}\]|\(?[a-z][.)]|\([a-z]\)|\(?[ivx]{1,5}[.)]|\([ivx]{1,5}\)|[A-Z]\))\s+(?=\S)/;
const CAPTION_RE =
  /^(?:figure|fig\.?|table|tab\.|listing|algorithm|exhibit|chart|plate|scheme|abbildung|abb\.|tabelle)\s*(?:[A-Z]?\d+(?:[.\-–]\d+)*[a-z]?|[IVXLC]+)\s*(?:[:.—–|]|$)/i;
const CAPTION_LOOSE_RE = /^(?:figure|fig\.?|table|tab\.)\s*\d+/i;

export function listMarker(line: Line): ListMarker | null {
  const m = BULLET_RE.exec(line.text) ?? ENUM_RE.exec(line.text);
  if (!m || m[1] === undefined) return null;
  const marker = m[1];
  const bullet = BULLET_RE.test(line.text);
  const first = line.runs[0];
  const second = line.runs[1];
  let textX = line.x0;
  if (first && second && first.text.trim() === marker) {
    textX = second.x0;
  } else if (first) {
    const frac = Math.min(1, (m[0].length) / Math.max(1, first.text.length));
    textX = first.x0 + frac * (first.x1 - first.x0);
  }
  return { marker, bullet, textX };
}

/** Caption labels: "Table 3:", "Figure 2.", "Fig. 1" (a bare "Fig. 1 shows" only when bold). */
export function isCaptionStart(line: Line): boolean {
  if (CAPTION_RE.test(line.text)) return true;
  return CAPTION_LOOSE_RE.test(line.text) && (line.runs[0]?.bold ?? false);
}

const SECTION_NUMBER_RE = /^(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+)\s+\p{L}/u;

const MONO = 0.6;
const MATH = 0.5;
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
  const code = prev.mono >= MONO && line.mono >= MONO;
  // Blank lines inside code listings are part of the listing up to a point.
  const gapLimit = (code ? 2.2 : 1.45) * expectedLeading(prev, ctx);
  if (dy > gapLimit) return false;
  if (Math.abs(prev.size - line.size) > 0.08 * size) return false;
  if (!both((l) => l.mono >= MONO)) {
    // Inline code can fill most of a short line inside a paragraph ("longtable."); only a line
    // set apart by space or indentation starts or ends a listing.
    const apart = dy > 1.15 * expectedLeading(prev, ctx) || Math.abs(line.x0 - prev.x0) > 0.5 * size;
    if (apart) return false;
  }
  if (!both((l) => l.math >= MATH) || !both((l) => l.bold >= BOLD)) return false;
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
  if (isCaptionStart(line) && !midSentence) return false;
  if (block.list) {
    // Continuation lines hang at the item's text; going back left ends the item.
    return line.x0 >= block.list.textX - 0.6 * line.size;
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
    if (cur && prev && continues(cur, prev, line, ctx)) {
      cur.lines.push(line);
      continue;
    }
    cur = { lines: [line] };
    if (line.mono < MONO && line.math < MATH) {
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

/**
 * Document-wide statistics and the typing of draft blocks: code, equation, heading, caption,
 * list item or paragraph, plus their text.
 */
import type { BlockType } from '../types.js';
import { isMathLine } from './lines.js';
import type { Line, PageLayout } from './model.js';
import type { DraftBlock } from './segment.js';
import { joinLines } from './text-normalize.js';

export interface DocStats {
  /** The font size carrying the most characters (body text). */
  bodySize: number;
  /** Median baseline distance between consecutive body lines. */
  leading: number;
}

export function docStats(pages: PageLayout[]): DocStats {
  const chars = new Map<number, number>();
  for (const p of pages) {
    for (const r of p.regions) {
      for (const l of r.lines) {
        if (l.role) continue;
        const k = Math.round(l.size * 2) / 2;
        chars.set(k, (chars.get(k) ?? 0) + l.chars);
      }
    }
  }
  let bodySize = 10;
  let best = 0;
  for (const [s, n] of chars) {
    if (n > best) {
      best = n;
      bodySize = s;
    }
  }
  const gaps: number[] = [];
  for (const p of pages) {
    for (const r of p.regions) {
      for (let i = 1; i < r.lines.length; i++) {
        const a = r.lines[i - 1] as Line;
        const b = r.lines[i] as Line;
        const near = (l: Line): boolean => Math.abs(l.size - bodySize) <= 0.3;
        const dy = b.y - a.y;
        if (near(a) && near(b) && dy > 0.8 * bodySize && dy < 2.5 * bodySize) gaps.push(dy);
      }
    }
  }
  gaps.sort((a, b) => a - b);
  const leading = gaps[Math.floor(gaps.length / 2)] ?? 1.2 * bodySize;
  return { bodySize, leading };
}

function weighted(lines: Line[], f: (l: Line) => number): number {
  let sum = 0;
  let n = 0;
  for (const l of lines) {
    sum += f(l) * l.chars;
    n += l.chars;
  }
  return n > 0 ? sum / n : 0;
}

/** Size carrying the most characters of a block. */
export function blockSize(lines: Line[]): number {
  const bySize = new Map<number, number>();
  for (const l of lines) bySize.set(l.size, (bySize.get(l.size) ?? 0) + l.chars);
  let size = lines[0]?.size ?? 0;
  let best = -1;
  for (const [s, n] of bySize) {
    if (n > best) {
      best = n;
      size = s;
    }
  }
  return size;
}

export interface Typed {
  type: BlockType;
  /** For headings: the style that decides the level. */
  headingStyle?: { size: number; bold: boolean };
}

/** Heading: a short block set larger than body text, or in bold at (about) body size. */
function headingStyle(block: DraftBlock, text: string, stats: DocStats): Typed['headingStyle'] | null {
  if (block.lines.length > 3 || text.length > 200 || text.length < 2) return null;
  if (!/\p{L}{2}/u.test(text)) return null;
  if (text.split(/\s+/).length > 24) return null;
  if (/[,;]$/.test(text)) return null;
  const size = blockSize(block.lines);
  const bold = weighted(block.lines, (l) => l.bold) >= 0.85;
  if (size >= 1.3 * stats.bodySize) return { size, bold };
  if (bold && size >= 0.95 * stats.bodySize && block.lines.length <= 2 && text.length <= 120) {
    // A bold one-liner at body size is a run-in head only when it does not read like a sentence.
    if (/[.!?]$/.test(text) && text.split(/\s+/).length > 8) return null;
    return { size, bold };
  }
  return null;
}

export function classify(block: DraftBlock, text: string, stats: DocStats): Typed {
  const lines = block.lines;
  // Code does not fill justified lines to the margin; prose full of inline code does.
  if (weighted(lines, (l) => l.mono) >= 0.6 && block.flush < Math.max(2, 0.5 * lines.length)) return { type: 'code' };
  const mathChars = lines.reduce((n, l) => n + (isMathLine(l) ? l.chars : 0), 0);
  if (mathChars >= 0.6 * lines.reduce((n, l) => n + l.chars, 0)) return { type: 'equation' };
  const head = !block.list?.bullet ? headingStyle(block, text, stats) : null;
  if (head) return { type: 'heading', headingStyle: head };
  if (block.caption) return { type: 'caption' };
  if (block.list) return { type: 'list_item' };
  return { type: 'paragraph' };
}

/** Prose text: lines joined (hyphenation repaired); list bullets dropped, enumerators kept. */
export function proseText(block: DraftBlock): string {
  const texts = block.lines.map((l) => l.text);
  if (block.list?.bullet && texts[0] !== undefined) {
    texts[0] = texts[0].slice(texts[0].indexOf(block.list.marker) + block.list.marker.length).trimStart();
  }
  return joinLines(texts);
}

/**
 * Code keeps its lines and indentation: spaces are rebuilt from x offsets in units of the
 * monospace advance, so aligned columns in program output stay aligned.
 */
export function codeText(lines: Line[]): string {
  const advances: number[] = [];
  for (const l of lines) {
    for (const r of l.runs) {
      if (r.mono && r.text.length >= 2) advances.push((r.x1 - r.x0) / r.text.length);
    }
  }
  advances.sort((a, b) => a - b);
  const adv = advances[Math.floor(advances.length / 2)] ?? 0.5 * (lines[0]?.size ?? 10);
  const left = Math.min(...lines.map((l) => l.x0));
  return lines
    .map((l) => {
      let s = ' '.repeat(Math.max(0, Math.min(80, Math.round((l.x0 - left) / adv))));
      let prevEnd: number | undefined;
      for (const r of l.runs) {
        if (prevEnd !== undefined) {
          const gap = Math.round((r.x0 - prevEnd) / adv);
          if (gap > 0 && !s.endsWith(' ') && !r.text.startsWith(' ')) s += ' '.repeat(Math.min(gap, 80));
        }
        s += r.text;
        prevEnd = r.x1;
      }
      return s.trimEnd();
    })
    .join('\n');
}

/** Display math keeps its line structure (fractions, aligned rows). */
export function equationText(lines: Line[]): string {
  return lines.map((l) => l.text).join('\n');
}

/**
 * Heading levels: distinct heading styles of the whole document ranked by size, bold before
 * regular at equal size; the largest style is level 1. Sizes within 0.6 pt are one style.
 */
export function headingLevels(
  styles: Array<{ size: number; bold: boolean }>,
): (s: { size: number; bold: boolean }) => number {
  const distinct: Array<{ size: number; bold: boolean }> = [];
  for (const s of styles) {
    if (!distinct.some((d) => d.bold === s.bold && Math.abs(d.size - s.size) < 0.6)) distinct.push(s);
  }
  distinct.sort((a, b) => b.size - a.size || Number(b.bold) - Number(a.bold));
  return (s) => {
    const i = distinct.findIndex((d) => d.bold === s.bold && Math.abs(d.size - s.size) < 0.6);
    return Math.min(6, (i < 0 ? distinct.length : i) + 1);
  };
}

/** Nesting depth of list items from where their text starts relative to the column. */
export function listLevels(offsets: number[], bodySize: number): (offset: number) => number {
  const centres: number[] = [];
  for (const o of [...offsets].sort((a, b) => a - b)) {
    const last = centres[centres.length - 1];
    if (last === undefined || o - last > 0.8 * bodySize) centres.push(o);
  }
  return (offset) => {
    let level = 0;
    let bestD = Infinity;
    centres.forEach((c, i) => {
      const d = Math.abs(c - offset);
      if (d < bestD) {
        bestD = d;
        level = i;
      }
    });
    return Math.min(level, 8);
  };
}

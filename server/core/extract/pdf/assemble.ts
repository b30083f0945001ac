/**
 * Turning one laid-out page into blocks in reading order: running heads, figures, tables and the
 * segmented text of every region, with margin notes interleaved beside the text they annotate.
 */
import type { BBox, BlockType, TableGrid } from '../types.js';
import { classify, codeText, equationText, proseText, type DocStats } from './classify.js';
import { lineBBox, type Line, type PageLayout, type Region } from './model.js';
import { isCaptionStart, mode, segmentLines, type SegmentContext } from './segment.js';
import { findTables, tableMarkdown } from './tables.js';

/** A block before document-wide passes fill in heading levels and list depths. */
export interface PendingBlock {
  type: BlockType;
  text: string;
  page: number;
  bbox: BBox;
  headingStyle?: { size: number; bold: boolean };
  /** List items: where the text starts, relative to the column's left edge. */
  listOffset?: number;
  table?: TableGrid;
}

function contains(b: BBox, l: Line): boolean {
  const cx = (l.x0 + l.x1) / 2;
  const cy = (l.top + l.bottom) / 2;
  return cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1;
}

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

/**
 * Extends a drawing's box over the short text lines right around it: axis labels, tick values and
 * legends sit just outside the plotted paths. Captions and prose stay out.
 */
function growFigure(box: BBox, lines: Line[]): BBox {
  const fig = { ...box };
  for (let pass = 0; pass < 4; pass++) {
    let grown = false;
    for (const l of lines) {
      const words = l.text.split(' ');
      // Labels are short, or rows of tick values ("Feb 01 Feb 15 Mar 01").
      const label = words.length <= 6 ? l.text.length <= 40 : l.text.length <= 60 && l.text.length / words.length <= 5;
      if (l.role || contains(fig, l) || !label) continue;
      if (isCaptionStart(l)) continue;
      const m = 1.8 * l.size;
      if (l.x1 < fig.x0 - m || l.x0 > fig.x1 + m || l.bottom < fig.y0 - m || l.top > fig.y1 + m) continue;
      fig.x0 = Math.min(fig.x0, l.x0);
      fig.x1 = Math.max(fig.x1, l.x1);
      fig.y0 = Math.min(fig.y0, l.top);
      fig.y1 = Math.max(fig.y1, l.bottom);
      grown = true;
    }
    if (!grown) break;
  }
  return fig;
}

function segmentContext(lines: Line[], stats: DocStats): SegmentContext {
  const body = lines.filter((l) => Math.abs(l.size - stats.bodySize) <= 0.5);
  const ref = body.length >= 3 ? body : lines;
  const colLeft = mode(ref.map((l) => l.x0)) ?? Math.min(...ref.map((l) => l.x0));
  const right = mode(ref.map((l) => l.x1));
  const atRight = right === undefined ? 0 : ref.filter((l) => Math.abs(l.x1 - right) <= 1.5).length;
  const justified = right !== undefined && ref.length >= 4 && atRight >= 0.3 * ref.length;
  const colRight = justified ? (right as number) : Math.max(...ref.map((l) => l.x1));
  return { bodySize: stats.bodySize, leading: stats.leading, colLeft, colRight, justified };
}

function textBlocks(lines: Line[], ctx: SegmentContext, page: number, stats: DocStats): PendingBlock[] {
  const out: PendingBlock[] = [];
  for (const draft of segmentLines(lines, ctx)) {
    const prose = proseText(draft);
    const typed = classify(draft, prose, stats);
    const text =
      typed.type === 'code' ? codeText(draft.lines) : typed.type === 'equation' ? equationText(draft.lines) : prose;
    if (!text.trim()) continue;
    const block: PendingBlock = { type: typed.type, text, page, bbox: lineBBox(draft.lines) };
    if (typed.headingStyle) block.headingStyle = typed.headingStyle;
    if (typed.type === 'list_item' && draft.list) block.listOffset = draft.list.textX - ctx.colLeft;
    out.push(block);
  }
  return out;
}

/** Blocks of one region; `figures` are the page's figure boxes whose centre lies in this region. */
function regionBlocks(region: Region, figures: BBox[], page: number, stats: DocStats): PendingBlock[] {
  const heads: PendingBlock[] = [];
  const feet: PendingBlock[] = [];
  const figureBlocks: PendingBlock[] = [];
  const absorbed = new Set<Line>();
  for (const found of figures) {
    const fig = growFigure(found, region.lines);
    const inside = region.lines.filter((l) => !l.role && contains(fig, l));
    const textArea = inside.reduce((s, l) => s + area({ x0: l.x0, y0: l.top, x1: l.x1, y1: l.bottom }), 0);
    // Text filling the box means a coloured frame behind prose, not a drawing with labels.
    if (textArea > 0.35 * area(fig)) continue;
    inside.forEach((l) => absorbed.add(l));
    // The text of a figure is whatever labels it carries; a bare image still gets a placeholder,
    // as every block has text.
    const labels = inside
      .map((l) => l.text)
      .join(' ')
      .trim();
    figureBlocks.push({ type: 'figure', text: labels || '[figure]', page, bbox: fig });
  }
  const flow: Line[] = [];
  for (const l of region.lines) {
    if (l.role === 'header') heads.push({ type: 'header', text: l.text, page, bbox: lineBBox([l]) });
    else if (l.role === 'footer') feet.push({ type: 'footer', text: l.text, page, bbox: lineBBox([l]) });
    else if (!absorbed.has(l)) flow.push(l);
  }
  const ctx = segmentContext(flow.length ? flow : region.lines, stats);
  const body: PendingBlock[] = [];
  let start = 0;
  for (const t of findTables(flow)) {
    body.push(...textBlocks(flow.slice(start, t.first), ctx, page, stats));
    body.push({
      type: 'table',
      text: tableMarkdown(t.grid),
      page,
      bbox: lineBBox(flow.slice(t.first, t.last + 1)),
      table: t.grid,
    });
    start = t.last + 1;
  }
  body.push(...textBlocks(flow.slice(start), ctx, page, stats));
  for (const f of figureBlocks) {
    const at = body.findIndex((b) => b.bbox.y0 >= f.bbox.y0);
    body.splice(at < 0 ? body.length : at, 0, f);
  }
  return [...heads, ...body, ...feet];
}

export function pageBlocks(layout: PageLayout, stats: DocStats): PendingBlock[] {
  const { regions } = layout;
  const figuresOf = new Map<Region, BBox[]>();
  for (const fig of layout.figures) {
    const cx = (fig.x0 + fig.x1) / 2;
    const cy = (fig.y0 + fig.y1) / 2;
    // The region whose lines surround the figure's centre best: same x-range, nearest lines.
    let best: Region | undefined;
    let bestD = Infinity;
    for (const r of regions) {
      if (cx < r.x0 - 5 || cx > r.x1 + 5) continue;
      for (const l of r.lines) {
        const d = Math.abs((l.top + l.bottom) / 2 - cy);
        if (d < bestD) {
          bestD = d;
          best = r;
        }
      }
    }
    best ??= regions[0];
    if (best) figuresOf.set(best, [...(figuresOf.get(best) ?? []), fig]);
  }
  const out: PendingBlock[] = [];
  let i = 0;
  while (i < regions.length) {
    const section = regions[i]?.section;
    const group: Region[] = [];
    while (i < regions.length && regions[i]?.section === section) group.push(regions[i++] as Region);
    const hasMargin = group.some((r) => r.kind === 'margin');
    const lists = group.map((r) => regionBlocks(r, figuresOf.get(r) ?? [], layout.page, stats));
    if (!hasMargin) {
      for (const l of lists) out.push(...l);
      continue;
    }
    // Margin notes go right before the body block they stand beside.
    // (A note is set level with its line, so it sorts a little higher to come first.)
    const merged = lists.flatMap((l, r) =>
      l.map((b, k) => ({ b, k, y: b.bbox.y0 - (group[r]?.kind === 'margin' ? 4 : 0) })),
    );
    merged.sort((a, b) => a.y - b.y || a.k - b.k);
    out.push(...merged.map((m) => m.b));
  }
  return out;
}

import type { BlockType } from '../extract/types.js';
import type { ChunkInputBlock } from './types.js';
import { countTokens } from './tokens.js';

/** A block ready for chunking: page furniture and empty blocks gone, text normalised, tokens counted. */
export interface PreparedBlock {
  id: string;
  type: BlockType;
  text: string;
  page: number;
  headingLevel: number | null;
  tokens: number;
}

export type UnitKind = 'heading' | 'flow' | 'list' | 'table' | 'figure';

/** What the chunker walks: one block, or a figure/table with the captions attached to it. */
export interface Unit {
  kind: UnitKind;
  block: number;
  /** Indices of captions placed before / after the block, in order. */
  before: number[];
  after: number[];
}

function normaliseText(block: ChunkInputBlock): string {
  const text = block.text;
  if (block.type === 'heading') return text.replace(/\s+/g, ' ').trim();
  // Code keeps its indentation and inner newlines; only surrounding blank lines go.
  if (block.type === 'code') return text.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd();
  return text.trim();
}

function normaliseLevel(level: number | null | undefined): number | null {
  if (typeof level !== 'number' || !Number.isFinite(level)) return null;
  return Math.max(1, Math.floor(level));
}

/**
 * Drops header and footer blocks (page furniture: running titles and page numbers would repeat in every
 * chunk of every page) and blocks without text. Figures stay even without text, since a caption may
 * still attach to them; a figure left with nothing to say is dropped when its unit is built.
 */
export function prepareBlocks(blocks: ChunkInputBlock[]): PreparedBlock[] {
  const out: PreparedBlock[] = [];
  for (const block of blocks) {
    if (block.type === 'header' || block.type === 'footer') continue;
    const text = normaliseText(block);
    if (text === '' && block.type !== 'figure') continue;
    out.push({
      id: block.block_id,
      type: block.type,
      text,
      page: block.page,
      headingLevel: block.type === 'heading' ? normaliseLevel(block.heading_level) : null,
      tokens: countTokens(text),
    });
  }
  return out;
}

const FIGURE_CUE = /^(?:fig(?:ure)?|image|photo|chart|graph|diagram|plate|illustration|exhibit|abb(?:ildung)?)\b/i;
const TABLE_CUE = /^(?:tab(?:le|elle)?)\b/i;

function isHost(block: PreparedBlock | undefined): boolean {
  return block !== undefined && (block.type === 'figure' || block.type === 'table');
}

/**
 * Which figure or table a run of captions [from, to] belongs to, or -1. A neighbour qualifies only when it
 * is a figure or a table right next to the run. With one on each side, the caption's own words decide
 * ("Figure 3", "Table 2"); failing that, the usual layout: figure captions sit below the figure, table
 * captions above the table.
 */
function captionHost(blocks: PreparedBlock[], from: number, to: number): number {
  const prev = isHost(blocks[from - 1]) ? from - 1 : -1;
  const next = isHost(blocks[to + 1]) ? to + 1 : -1;
  if (prev < 0 || next < 0) return Math.max(prev, next);
  const text = blocks[from]!.text;
  const wanted: BlockType | null = FIGURE_CUE.test(text) ? 'figure' : TABLE_CUE.test(text) ? 'table' : null;
  const prevType = blocks[prev]!.type;
  const nextType = blocks[next]!.type;
  if (wanted && prevType !== nextType) return prevType === wanted ? prev : next;
  if (prevType === 'figure') return prev;
  if (nextType === 'table') return next;
  return prev;
}

function kindOf(type: BlockType): UnitKind {
  switch (type) {
    case 'heading':
      return 'heading';
    case 'list_item':
      return 'list';
    case 'table':
      return 'table';
    case 'figure':
      return 'figure';
    default:
      return 'flow';
  }
}

/** Groups captions with their figure or table; captions with neither next to them stay body text. */
export function buildUnits(blocks: PreparedBlock[]): Unit[] {
  const host = new Int32Array(blocks.length).fill(-1);
  for (let i = 0; i < blocks.length; i++) {
    if (blocks[i]!.type !== 'caption') continue;
    let j = i;
    while (blocks[j + 1]?.type === 'caption') j++;
    host.fill(captionHost(blocks, i, j), i, j + 1);
    i = j;
  }
  const units: Unit[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.type === 'caption' && host[i]! >= 0) continue;
    const unit: Unit = { kind: kindOf(block.type), block: i, before: [], after: [] };
    if (unit.kind === 'table' || unit.kind === 'figure') {
      for (let k = i - 1; k >= 0 && blocks[k]!.type === 'caption' && host[k] === i; k--) unit.before.unshift(k);
      for (let k = i + 1; k < blocks.length && blocks[k]!.type === 'caption' && host[k] === i; k++) unit.after.push(k);
    }
    if (unit.kind === 'figure' && block.text === '' && unit.before.length + unit.after.length === 0) continue;
    units.push(unit);
  }
  return units;
}

import { Packer, renderPiece, type Item, type Piece } from './packer.js';
import { blockItems } from './items.js';
import { splitToBudget } from './segments.js';
import type { PreparedBlock, Unit } from './units.js';

const SEPARATOR_ROW = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/**
 * How many leading lines of a table's text are its header. Extractors render tables as Markdown, so the
 * header ends at the `| --- |` line; without one (a table retyped by a reviewer) the first line is taken
 * as the header, which at worst repeats a data row.
 */
function headerLineCount(lines: string[]): number {
  const sep = lines.slice(0, 4).findIndex((line) => SEPARATOR_ROW.test(line));
  return sep >= 0 ? sep + 1 : Math.min(1, lines.length);
}

function sum(items: Item[]): number {
  return items.reduce((n, item) => n + item.tokens, 0);
}

function lineItem(block: PreparedBlock, index: number, text: string, tokens: number, seg: number, sep: string): Item {
  return {
    text,
    tokens,
    blockIds: [block.id],
    pages: [block.page],
    firstBlock: index,
    firstSeg: seg,
    lastBlock: index,
    sep,
    role: 'content',
    type: 'table',
  };
}

/**
 * A table and its captions as chunk pieces. Up to twice the target it stays whole (a table cut in two
 * reads worse than a long chunk); larger, it is cut between rows into pieces within the target, each
 * repeating the header rows (and a short caption placed above the table) so every piece reads on its own.
 */
export function tablePieces(blocks: PreparedBlock[], unit: Unit, leading: Item[], target: number): Piece[] {
  const table = blocks[unit.block]!;
  const captions = (indices: number[]): Item[] => indices.flatMap((i) => blockItems(blocks, i, target, 'content'));
  const before = [...leading, ...captions(unit.before)];
  const after = captions(unit.after);
  const whole = [...before, ...blockItems(blocks, unit.block, Infinity, 'content'), ...after];
  if (sum(whole) <= 2 * target) return [renderPiece(whole)];

  const lines = splitToBudget(table.text, Infinity, 'lines');
  const headerCount = headerLineCount(lines.map((l) => l.text));
  const header = renderPiece(
    lines.slice(0, headerCount).map((l, k) => lineItem(table, unit.block, l.text, l.tokens, k, l.sep)),
  );
  const headerItem = lineItem(table, unit.block, header.text, sum(header.items), 0, '');
  let context: Item | null = prefixOf([...captions(unit.before), headerItem], unit.block);
  if (context.tokens > target / 2)
    context = headerItem.tokens <= target / 2 ? prefixOf([headerItem], unit.block) : null;
  const rowBudget = target - (context?.tokens ?? 0);

  const packer = new Packer(target, context ? () => context : null);
  for (const item of before) packer.add(item);
  if (context) packer.add(headerItem);
  // Segment 0 opens the table (after captions and headings: "\n\n"); later lines keep their "\n".
  let seg = context ? 1 : 0;
  for (const line of context ? lines.slice(headerCount) : lines) {
    const parts = line.tokens <= rowBudget ? [line] : splitToBudget(line.text, rowBudget, 'prose');
    parts.forEach((part, p) => {
      packer.add(lineItem(table, unit.block, part.text, part.tokens, seg++, p === 0 ? line.sep : part.sep));
    });
  }
  for (const item of after) packer.add(item);
  return packer.finish();
}

/** The repeated context of a split table as one prefix item; the rows after it keep their "\n". */
function prefixOf(items: Item[], tableIndex: number): Item {
  const piece = renderPiece(items);
  return {
    text: piece.text,
    tokens: sum(items),
    blockIds: items.flatMap((i) => i.blockIds),
    pages: items.flatMap((i) => i.pages),
    firstBlock: items[0]?.firstBlock ?? tableIndex,
    firstSeg: 0,
    lastBlock: tableIndex,
    sep: '',
    role: 'prefix',
    type: 'table',
  };
}

/**
 * Blocks -> chunks for retrieval. Pure and deterministic, one pass over the blocks (O(n) in their text):
 * it runs in a worker thread over documents of 10,000+ blocks.
 *
 * Structure:
 * - A heading of level L closes the open chunk and the sections of level >= L; no chunk spans two
 *   sections. `section_path` holds the open headings, outermost first, the chunk's own section last.
 * - A heading's text opens the first chunk after it. Headings with nothing under them before a deeper
 *   heading are carried into that deeper heading's first chunk ("Part I\n\nChapter 1\n\ntext…"): a chunk
 *   holding only a title is a poor search hit and one more item to review, and the carried headings are
 *   all ancestors of the chunk, so its section is unchanged. A heading whose section closes with nothing
 *   in it (the next heading is a sibling or higher) still gets a small chunk of its own, so no reviewed
 *   block disappears from the chunks.
 * - A heading without a level is a sibling of the innermost open heading (level 1 when none is open).
 *   Levels go missing when a reviewer retypes a paragraph as a heading or a format has no levels; making
 *   such a heading level 1 would cut every chunk after it off its chapter, nesting it deeper would stack
 *   consecutive level-less headings into an ever-deeper path, while sibling keeps the outer context.
 *
 * Types: tables (with adjacent captions) are chunks of their own; consecutive list items make `list`
 * chunks; a figure with its captions makes a `figure` chunk; paragraphs, code, equations and unattached
 * captions flow together into `section` chunks, typed `equation` when a run holds nothing but equations.
 * Header and footer blocks are page furniture and never reach a chunk.
 *
 * Size: blocks accumulate until the next would pass `target_tokens`; then a `continuation` opens with the
 * last `overlap_tokens` of the previous piece (overlap_tokens is capped at half the target so every piece
 * makes progress); the blocks the overlap text comes from are listed in its block_ids (see items.ts). Text after a table, list or figure starts a fresh `section` chunk without overlap: the
 * interruption already broke the prose, and overlap exists to mend cuts made for size. Only tables may
 * pass the target, up to twice it (see tables.ts).
 */
import { blockItems, overlapPrefix } from './items.js';
import { Packer, type Item, type Piece } from './packer.js';
import { tablePieces } from './tables.js';
import { countTokens } from './tokens.js';
import type { ChunkDraft, ChunkInputBlock, ChunkOptions, ChunkType } from './types.js';
import { buildUnits, prepareBlocks, type PreparedBlock, type Unit } from './units.js';
import { withChunkIds } from './chunk-id.js';

type Draft = Omit<ChunkDraft, 'chunk_id'>;

interface OpenRun {
  kind: 'flow' | 'list';
  packer: Packer;
}

class Walker {
  private readonly drafts: Draft[] = [];
  private readonly stack: { level: number; text: string }[] = [];
  /** Heading items not yet placed in a chunk; always the innermost headings of the stack. */
  private pending: Item[] = [];
  private run: OpenRun | null = null;

  constructor(
    private readonly blocks: PreparedBlock[],
    private readonly target: number,
    private readonly overlap: number,
  ) {}

  walk(units: Unit[]): Draft[] {
    for (const unit of units) {
      switch (unit.kind) {
        case 'heading':
          this.heading(unit.block);
          break;
        case 'flow':
        case 'list':
          this.runBlock(unit.kind, unit.block);
          break;
        case 'table':
          this.closeRun();
          this.emit(tablePieces(this.blocks, unit, this.takePending(), this.target), 'table');
          break;
        case 'figure':
          this.figure(unit);
          break;
      }
    }
    this.closeRun();
    this.flushPendingHeadings();
    return this.drafts;
  }

  private heading(index: number): void {
    this.closeRun();
    const block = this.blocks[index]!;
    const top = this.stack[this.stack.length - 1];
    const level = block.headingLevel ?? top?.level ?? 1;
    if (this.pending.length > 0 && top && top.level >= level) this.flushPendingHeadings();
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level >= level) this.stack.pop();
    this.stack.push({ level, text: block.text });
    this.pending.push(...blockItems(this.blocks, index, this.target, 'heading'));
  }

  private runBlock(kind: OpenRun['kind'], index: number): void {
    if (this.run?.kind !== kind) {
      this.closeRun();
      this.run = { kind, packer: this.newPacker() };
    }
    for (const item of blockItems(this.blocks, index, this.target, 'content')) this.run.packer.add(item);
  }

  private figure(unit: Unit): void {
    this.closeRun();
    const packer = this.newPacker();
    for (const i of [...unit.before, unit.block, ...unit.after]) {
      for (const item of blockItems(this.blocks, i, this.target, 'content')) packer.add(item);
    }
    this.emit(packer.finish(), 'figure');
  }

  /** A packer with overlap, opened with the pending headings. */
  private newPacker(): Packer {
    const packer = new Packer(this.target, overlapPrefix(this.overlap));
    for (const item of this.takePending()) packer.add(item);
    return packer;
  }

  private closeRun(): void {
    if (!this.run) return;
    const pieces = this.run.packer.finish();
    const onlyEquations = pieces.every((p) => p.items.every((i) => i.role !== 'content' || i.type === 'equation'));
    this.emit(pieces, this.run.kind === 'list' ? 'list' : onlyEquations ? 'equation' : 'section');
    this.run = null;
  }

  private takePending(): Item[] {
    const items = this.pending;
    this.pending = [];
    return items;
  }

  private flushPendingHeadings(): void {
    if (this.pending.length === 0) return;
    this.emit(this.newPacker().finish(), 'section');
  }

  private emit(pieces: Piece[], firstType: ChunkType): void {
    const sectionPath = this.stack.map((s) => s.text);
    pieces.forEach((piece, k) => {
      const ids = new Set<string>();
      const pages = new Set<number>();
      for (const item of piece.items) {
        for (const id of item.blockIds) ids.add(id);
        for (const page of item.pages) pages.add(page);
      }
      this.drafts.push({
        text: piece.text,
        token_count: countTokens(piece.text),
        chunk_type: k === 0 ? firstType : 'continuation',
        section_path: [...sectionPath],
        block_ids: [...ids],
        page_numbers: [...pages].sort((a, b) => a - b),
      });
    });
  }
}

/**
 * Cuts reviewed blocks (in reading order) into retrieval chunks; see the module comment for the rules.
 * Throws a RangeError when `target_tokens` is not a positive finite number.
 */
export function buildChunks(blocks: ChunkInputBlock[], opts: ChunkOptions): ChunkDraft[] {
  if (!Number.isFinite(opts.target_tokens) || opts.target_tokens < 1) {
    throw new RangeError(`target_tokens must be a number >= 1, got ${opts.target_tokens}`);
  }
  const target = Math.floor(opts.target_tokens);
  const overlap = Number.isFinite(opts.overlap_tokens)
    ? Math.min(Math.max(0, Math.floor(opts.overlap_tokens)), Math.floor(target / 2))
    : 0;
  const prepared = prepareBlocks(blocks);
  const drafts = new Walker(prepared, target, overlap).walk(buildUnits(prepared));
  return withChunkIds(drafts, opts.id_seed);
}

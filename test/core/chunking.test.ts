import { describe, expect, it } from 'vitest';
import {
  buildChunks,
  countTokens,
  tailByTokens,
  type ChunkDraft,
  type ChunkInputBlock,
  type ChunkOptions,
} from '../../server/core/chunking/index.js';
import type { BlockType } from '../../server/core/extract/types.js';
import { seededRandom } from '../helpers/seeded-random.js';

// ---------------------------------------------------------------------------------------------------
// Generated documents (seeded, so every run sees the same text)

const WORDS = (
  'river stone light garden window paper market silver forest harbor mountain valley ' +
  'letter engine signal bridge castle winter summer autumn spring ocean desert island meadow ' +
  'candle mirror ladder pocket rabbit falcon violin anchor basket copper marble velvet'
).split(' ');
const LONG_WORDS = ['characterization', 'implementation', 'responsibilities', 'interoperability'];

class Gen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = seededRandom(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.r() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  word(): string {
    if (this.chance(0.05)) return LONG_WORDS[this.int(0, LONG_WORDS.length - 1)]!;
    if (this.chance(0.05)) return String(this.int(1, 99999));
    return WORDS[this.int(0, WORDS.length - 1)]!;
  }
  sentence(): string {
    const words = Array.from({ length: this.int(5, 16) }, () => this.word());
    if (words.length > 6 && this.chance(0.3)) words[3] += ',';
    const first = words[0]!;
    words[0] = first.charAt(0).toUpperCase() + first.slice(1);
    return words.join(' ') + '.';
  }
  paragraph(min: number, max: number): string {
    return Array.from({ length: this.int(min, max) }, () => this.sentence()).join(' ');
  }
}

class DocBuilder {
  readonly blocks: ChunkInputBlock[] = [];
  private page = 1;
  private onPage = 0;
  constructor(private readonly perPage = 10) {}

  add(type: BlockType, text: string, headingLevel?: number | null): string {
    const id = `b${String(this.blocks.length).padStart(5, '0')}`;
    this.blocks.push({ block_id: id, type, text, page: this.page, heading_level: headingLevel });
    if (++this.onPage >= this.perPage) this.turnPage();
    return id;
  }

  /** Page furniture between the last block of a page and the first of the next. */
  private turnPage(): void {
    this.blocks.push({ block_id: `f${this.page}`, type: 'footer', text: `FOOTER LINE ${this.page}`, page: this.page });
    this.page++;
    this.onPage = 0;
    this.blocks.push({ block_id: `h${this.page}`, type: 'header', text: `RUNNING HEAD ${this.page}`, page: this.page });
  }
}

function markdownTable(g: Gen, rows: number, header = ['Name', 'Value', 'Notes']): string {
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (let i = 0; i < rows; i++) lines.push(`| row${i} | ${g.int(0, 9999)} | ${g.word()} ${g.word()} |`);
  return lines.join('\n');
}

/** H1 > H2 > H3 with paragraphs (some longer than the target), lists, tables, code, equations, furniture. */
function generateDoc(seed: number, minBlocks: number): ChunkInputBlock[] {
  const g = new Gen(seed);
  const doc = new DocBuilder();
  for (let c = 1; doc.blocks.length < minBlocks; c++) {
    doc.add('heading', `Chapter ${c}:  ${g.word()}\n${g.word()} `, 1);
    for (let p = g.int(0, 2); p > 0; p--) doc.add('paragraph', g.paragraph(1, 4));
    for (let s = 1; s <= g.int(1, 3); s++) {
      doc.add('heading', `Section ${c}.${s} ${g.word()}`, 2);
      for (let p = g.int(1, 3); p > 0; p--) doc.add('paragraph', g.paragraph(1, g.chance(0.2) ? 25 : 5));
      if (g.chance(0.4)) for (let i = g.int(2, 7); i > 0; i--) doc.add('list_item', g.sentence());
      if (g.chance(0.3)) doc.add('table', markdownTable(g, g.int(2, 8)));
      for (let t = 1; t <= g.int(0, 2); t++) {
        doc.add('heading', `Topic ${c}.${s}.${t}`, 3);
        for (let p = g.int(0, 4); p > 0; p--) doc.add('paragraph', g.paragraph(1, 6));
        if (g.chance(0.2)) doc.add('code', `function f${c}${s}${t}(x) {\n  return x * ${t};\n}`);
        if (g.chance(0.2)) doc.add('equation', `x_${t} = ${c} + ${s}`);
      }
    }
  }
  return doc.blocks;
}

// ---------------------------------------------------------------------------------------------------
// Reference model of the structure, computed independently of the chunker

interface Ref {
  index: Map<string, number>;
  path: Map<string, string[]>;
  type: Map<string, BlockType>;
}

function reference(blocks: ChunkInputBlock[]): Ref {
  const ref: Ref = { index: new Map(), path: new Map(), type: new Map() };
  const stack: { level: number; text: string }[] = [];
  blocks.forEach((b, i) => {
    if (b.type === 'heading') {
      const level = b.heading_level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: b.text.replace(/\s+/g, ' ').trim() });
    }
    ref.index.set(b.block_id, i);
    ref.path.set(
      b.block_id,
      stack.map((s) => s.text),
    );
    ref.type.set(b.block_id, b.type);
  });
  return ref;
}

const OPTS: ChunkOptions = { target_tokens: 120, overlap_tokens: 24, id_seed: 'job-1' };

function checkInvariants(blocks: ChunkInputBlock[], chunks: ChunkDraft[], opts: ChunkOptions): void {
  const ref = reference(blocks);
  const covered = new Set<string>();
  for (const c of chunks) {
    expect(c.chunk_id).toMatch(/^c[0-9a-f]{16}$/);
    expect(c.token_count).toBe(countTokens(c.text));
    expect(c.text).not.toMatch(/FOOTER LINE|RUNNING HEAD/);
    const limit = c.chunk_type === 'table' ? 2 * opts.target_tokens : opts.target_tokens;
    expect(c.token_count, c.text).toBeLessThanOrEqual(limit);
    // block_ids in reading order without duplicates; pages sorted, unique, and those of the blocks.
    const idx = c.block_ids.map((id) => ref.index.get(id)!);
    for (let k = 1; k < idx.length; k++) expect(idx[k]!).toBeGreaterThan(idx[k - 1]!);
    const pages = [...new Set(c.block_ids.map((id) => blocks[ref.index.get(id)!]!.page))].sort((a, b) => a - b);
    expect(c.page_numbers).toEqual(pages);
    // Every non-heading block lies in the chunk's own section; headings in the chunk are on its path.
    const content = c.block_ids.filter((id) => ref.type.get(id) !== 'heading');
    for (const id of content) expect(ref.path.get(id), `${id} in ${c.chunk_id}`).toEqual(c.section_path);
    for (const id of c.block_ids) {
      if (ref.type.get(id) === 'heading')
        expect(c.section_path).toContain(blocks[ref.index.get(id)!]!.text.replace(/\s+/g, ' ').trim());
    }
    // No heading at all between the first and last content block of a chunk.
    if (content.length > 1) {
      const from = ref.index.get(content[0]!)!;
      const to = ref.index.get(content[content.length - 1]!)!;
      for (let i = from + 1; i < to; i++) expect(blocks[i]!.type, `heading inside ${c.chunk_id}`).not.toBe('heading');
    }
    for (const id of c.block_ids) covered.add(id);
  }
  for (const b of blocks) {
    const furniture = b.type === 'header' || b.type === 'footer';
    expect(covered.has(b.block_id), b.block_id).toBe(!furniture);
  }
}

/** Longest prefix of `next` that is a suffix of `prev` (the overlap), or ''. */
function overlapOf(prev: string, next: string): string {
  for (let k = Math.min(prev.length, next.length); k > 0; k--) {
    const head = next.slice(0, k);
    if (prev.endsWith(head) && /\S/.test(head)) return head;
  }
  return '';
}

// ---------------------------------------------------------------------------------------------------

describe('countTokens', () => {
  it('counts words, punctuation, long words and numbers separately', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('   \n\t ')).toBe(0);
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('internationalization')).toBe(4); // 20 letters -> ceil(20 / 6)
    expect(countTokens('abcdefgh')).toBe(1);
    expect(countTokens('abcdefghi')).toBe(2);
    expect(countTokens('1234567')).toBe(3);
    expect(countTokens('3.14')).toBe(3);
    expect(countTokens('naïve café')).toBe(2);
    expect(countTokens('東京都')).toBe(3);
  });

  it('adds up over whitespace joins', () => {
    const g = new Gen(7);
    const a = g.paragraph(3, 3);
    const b = g.paragraph(3, 3);
    expect(countTokens(`${a}\n\n${b}`)).toBe(countTokens(a) + countTokens(b));
  });
});

describe('tailByTokens', () => {
  it('takes whole sentences from the end', () => {
    const text = 'First sentence is here. Second one follows now. Third.';
    expect(tailByTokens(text, 8)).toBe('Second one follows now. Third.');
    expect(tailByTokens(text, 100)).toBe(text);
    expect(tailByTokens(text, 0)).toBe('');
  });

  it('falls back to words when the last sentence is longer than the budget', () => {
    const text = 'Short. A very long final sentence with many words that will not fit at all.';
    const tail = tailByTokens(text, 5);
    expect(tail).toBe('not fit at all.');
    expect(countTokens(tail)).toBeLessThanOrEqual(5);
  });
});

describe('buildChunks: structure', () => {
  it('follows nested headings: section paths, no chunk crossing a heading, full coverage', () => {
    const blocks = generateDoc(1, 400);
    const chunks = buildChunks(blocks, OPTS);
    checkInvariants(blocks, chunks, OPTS);
    const paths = new Set(chunks.map((c) => c.section_path.length));
    expect(paths).toEqual(new Set([1, 2, 3]));
    expect(
      chunks.some(
        (c) => c.section_path[0]?.startsWith('Chapter 1: ') && /^Section 1\.1 /.test(c.section_path[1] ?? ''),
      ),
    ).toBe(true);
    expect(chunks.every((c) => !/\s{2}|\n/.test(c.section_path.join('|')))).toBe(true);
  });

  it('keeps every invariant for small, large and odd targets and overlaps', () => {
    for (const [seed, target, overlap] of [
      [2, 5, 3],
      [3, 17, 1000],
      [4, 40, 0],
      [5, 300, 60],
      [6, 1, 1],
    ] as const) {
      const blocks = generateDoc(seed, 150);
      const opts = { target_tokens: target, overlap_tokens: overlap, id_seed: 'x' };
      const chunks = buildChunks(blocks, opts);
      checkInvariants(blocks, chunks, opts);
      expect(buildChunks(blocks, opts)).toEqual(chunks);
    }
    expect(buildChunks([], OPTS)).toEqual([]);
    expect(buildChunks([{ block_id: 'h', type: 'header', text: 'Only furniture', page: 1 }], OPTS)).toEqual([]);
    expect(() => buildChunks([], { ...OPTS, target_tokens: 0 })).toThrow(RangeError);
  });

  it('starts a section chunk with its heading; carries empty parent headings into the child chunk', () => {
    const doc = new DocBuilder(100);
    doc.add('heading', 'Part One', 1);
    doc.add('heading', 'Intro', 2);
    const p = doc.add('paragraph', 'Some text here.');
    doc.add('heading', 'Empty', 2);
    doc.add('heading', 'Next', 2);
    doc.add('paragraph', 'More text.');
    doc.add('heading', 'Trailing', 1);
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks.map((c) => [c.text, c.section_path, c.chunk_type])).toEqual([
      ['Part One\n\nIntro\n\nSome text here.', ['Part One', 'Intro'], 'section'],
      ['Empty', ['Part One', 'Empty'], 'section'],
      ['Next\n\nMore text.', ['Part One', 'Next'], 'section'],
      ['Trailing', ['Trailing'], 'section'],
    ]);
    expect(chunks[0]!.block_ids).toEqual(['b00000', 'b00001', p]);
  });

  it('treats a heading without a level as a sibling of the innermost open heading', () => {
    const doc = new DocBuilder(100);
    doc.add('heading', 'Book', 1);
    doc.add('heading', 'Chapter', 2);
    doc.add('paragraph', 'Alpha.');
    doc.add('heading', 'Retyped', null);
    doc.add('paragraph', 'Beta.');
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks.map((c) => c.section_path)).toEqual([
      ['Book', 'Chapter'],
      ['Book', 'Retyped'],
    ]);
  });

  it('leaves headers and footers out, also across a page break inside a section', () => {
    const doc = new DocBuilder(2);
    const ids = ['On page one.', 'Still page one.', 'Now on page two.'].map((t) => doc.add('paragraph', t));
    expect(doc.blocks.map((b) => b.type)).toEqual(['paragraph', 'paragraph', 'footer', 'header', 'paragraph']);
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.text).toBe('On page one.\n\nStill page one.\n\nNow on page two.');
    expect(chunks[0]!.block_ids).toEqual(ids);
    expect(chunks[0]!.page_numbers).toEqual([1, 2]);
  });

  it('keeps code newlines and merges equations into the surrounding text', () => {
    const doc = new DocBuilder(100);
    doc.add('heading', 'Math', 1);
    doc.add('paragraph', 'We have');
    doc.add('equation', 'a^2 + b^2 = c^2');
    doc.add('code', '\n\ndef f(x):\n    return x\n\n');
    doc.add('heading', 'Alone', 1);
    doc.add('equation', 'E = mc^2');
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks.map((c) => [c.chunk_type, c.text])).toEqual([
      ['section', 'Math\n\nWe have\n\na^2 + b^2 = c^2\n\ndef f(x):\n    return x'],
      ['equation', 'Alone\n\nE = mc^2'],
    ]);
  });
});

describe('buildChunks: block types', () => {
  it('puts a table in a chunk of its own, with the caption above it', () => {
    const g = new Gen(3);
    const doc = new DocBuilder(100);
    doc.add('paragraph', 'Before the table.');
    const cap = doc.add('caption', 'Table 1: Prices');
    const t = doc.add('table', markdownTable(g, 3));
    doc.add('paragraph', 'After the table.');
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks.map((c) => c.chunk_type)).toEqual(['section', 'table', 'section']);
    expect(chunks[1]!.block_ids).toEqual([cap, t]);
    expect(chunks[1]!.text.startsWith('Table 1: Prices\n\n| Name | Value | Notes |\n| --- |')).toBe(true);
    expect(chunks[2]!.text).toBe('After the table.');
  });

  it('keeps a table up to twice the target whole', () => {
    const g = new Gen(4);
    const text = markdownTable(g, 14);
    const opts = { ...OPTS, target_tokens: Math.ceil(countTokens(text) / 1.5) };
    const chunks = buildChunks([{ block_id: 't', type: 'table', text, page: 1 }], opts);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.chunk_type).toBe('table');
    expect(chunks[0]!.token_count).toBeGreaterThan(opts.target_tokens);
  });

  it('splits a big table by rows, repeating the header row (and a short caption) in every part', () => {
    const g = new Gen(5);
    const text = markdownTable(g, 120);
    const header = '| Name | Value | Notes |\n| --- | --- | --- |';
    const blocks: ChunkInputBlock[] = [
      { block_id: 'cap', type: 'caption', text: 'Table 9: Inventory', page: 1 },
      { block_id: 'tbl', type: 'table', text, page: 1 },
    ];
    const opts = { ...OPTS, target_tokens: 100 };
    const chunks = buildChunks(blocks, opts);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((c) => c.chunk_type)).toEqual(['table', ...chunks.slice(1).map(() => 'continuation')]);
    const rows: string[] = [];
    for (const c of chunks) {
      expect(c.token_count).toBeLessThanOrEqual(100);
      expect(c.text.startsWith(`Table 9: Inventory\n\n${header}\n| row`)).toBe(true);
      expect(c.block_ids).toEqual(['cap', 'tbl']);
      rows.push(...c.text.split('\n').filter((l) => l.startsWith('| row')));
    }
    expect(rows).toEqual(text.split('\n').slice(2));
  });

  it('groups consecutive list items into list chunks, splitting long lists', () => {
    const g = new Gen(6);
    const doc = new DocBuilder(1000);
    doc.add('paragraph', 'Intro.');
    const items = Array.from({ length: 4 }, () => doc.add('list_item', g.sentence()));
    doc.add('paragraph', 'Middle.');
    const many = Array.from({ length: 60 }, () => doc.add('list_item', g.sentence()));
    const chunks = buildChunks(doc.blocks, OPTS);
    checkInvariants(doc.blocks, chunks, OPTS);
    expect(chunks[1]!.chunk_type).toBe('list');
    expect(chunks[1]!.block_ids).toEqual(items);
    const longList = chunks.slice(3);
    expect(longList.length).toBeGreaterThan(2);
    expect(longList.map((c) => c.chunk_type)).toEqual(['list', ...longList.slice(1).map(() => 'continuation')]);
    expect(new Set(longList.flatMap((c) => c.block_ids))).toEqual(new Set(many));
  });

  it('attaches captions to figures; a caption with no figure or table is body text', () => {
    const doc = new DocBuilder(100);
    doc.add('paragraph', 'Text.');
    const fig = doc.add('figure', '');
    const cap = doc.add('caption', 'Figure 2: A heron');
    doc.add('paragraph', 'More text.');
    doc.add('caption', 'Stray caption');
    const chunks = buildChunks(doc.blocks, OPTS);
    expect(chunks.map((c) => [c.chunk_type, c.text])).toEqual([
      ['section', 'Text.'],
      ['figure', 'Figure 2: A heron'],
      ['section', 'More text.\n\nStray caption'],
    ]);
    expect(chunks[1]!.block_ids).toEqual([fig, cap]);
  });
});

describe('buildChunks: size and overlap', () => {
  it('respects the target, splitting over-long blocks and even unbroken runs', () => {
    const g = new Gen(8);
    const blocks: ChunkInputBlock[] = [
      { block_id: 'long', type: 'paragraph', text: g.paragraph(60, 60), page: 1 },
      { block_id: 'blob', type: 'paragraph', text: 'x'.repeat(3000) + 'A1b2C3'.repeat(300), page: 1 },
      {
        block_id: 'code',
        type: 'code',
        text: Array.from({ length: 200 }, (_, i) => `  line_${i} = ${i}`).join('\n'),
        page: 2,
      },
    ];
    const opts = { ...OPTS, target_tokens: 64, overlap_tokens: 12 };
    const chunks = buildChunks(blocks, opts);
    checkInvariants(blocks, chunks, opts);
    expect(chunks.length).toBeGreaterThan(20);
    for (const c of chunks) expect(c.token_count).toBeLessThanOrEqual(64);
    expect(chunks.filter((c) => c.block_ids.includes('blob')).length).toBeGreaterThan(5);
    // Every sentence of the long paragraph survives whole in some chunk (cuts at sentence boundaries).
    const sentences = blocks[0]!.text.split(/(?<=\.) /);
    for (const s of sentences)
      expect(
        chunks.some((c) => c.text.includes(s)),
        s,
      ).toBe(true);
    expect(chunks.some((c) => c.text.includes('  line_7 = 7\n  line_8 = 8'))).toBe(true);
  });

  it('starts every continuation with overlap from the previous piece, listing its blocks', () => {
    const g = new Gen(9);
    const doc = new DocBuilder(1000);
    doc.add('heading', 'Long section', 1);
    for (let i = 0; i < 30; i++) doc.add('paragraph', g.paragraph(1, 2));
    const opts = { ...OPTS, target_tokens: 80, overlap_tokens: 16 };
    const chunks = buildChunks(doc.blocks, opts);
    checkInvariants(doc.blocks, chunks, opts);
    expect(chunks[0]!.chunk_type).toBe('section');
    expect(chunks.length).toBeGreaterThan(5);
    const byId = new Map(doc.blocks.map((b) => [b.block_id, b.text]));
    for (let k = 1; k < chunks.length; k++) {
      const [prev, cur] = [chunks[k - 1]!, chunks[k]!];
      expect(cur.chunk_type).toBe('continuation');
      const overlap = overlapOf(prev.text, cur.text);
      expect(overlap.length, `chunk ${k}`).toBeGreaterThan(0);
      expect(countTokens(overlap)).toBeLessThanOrEqual(16);
      // The overlap's source block is listed, and it is the last block of the previous piece.
      const source = prev.block_ids[prev.block_ids.length - 1]!;
      expect(byId.get(source)!.endsWith(overlap.split('\n\n').pop()!)).toBe(true);
      expect(cur.block_ids[0]).toBe(prev.block_ids.find((id) => byId.get(id)!.includes(overlap.split('\n\n')[0]!)));
    }
  });
});

describe('buildChunks: ids', () => {
  it('is deterministic and gives unique ids', () => {
    const blocks = generateDoc(11, 300);
    const a = buildChunks(blocks, OPTS);
    const b = buildChunks(structuredClone(blocks), OPTS);
    expect(b).toEqual(a);
    expect(new Set(a.map((c) => c.chunk_id)).size).toBe(a.length);
    expect(buildChunks(blocks, { ...OPTS, id_seed: 'job-2' })[0]!.chunk_id).not.toBe(a[0]!.chunk_id);
  });

  it('numbers repeated identical chunks so their ids differ, stably', () => {
    const doc = new DocBuilder(100);
    for (let i = 0; i < 3; i++) {
      doc.add('heading', 'Note', 1);
      doc.add('paragraph', 'Same words.');
    }
    const a = buildChunks(doc.blocks, OPTS);
    expect(a.map((c) => c.text)).toEqual(['Note\n\nSame words.', 'Note\n\nSame words.', 'Note\n\nSame words.']);
    expect(new Set(a.map((c) => c.chunk_id)).size).toBe(3);
    expect(buildChunks(doc.blocks, OPTS).map((c) => c.chunk_id)).toEqual(a.map((c) => c.chunk_id));
  });

  it('changes exactly the ids of the chunks whose text contains an edited paragraph', () => {
    const blocks = generateDoc(12, 50);
    expect(blocks.length).toBeGreaterThanOrEqual(50);
    expect(blocks.length).toBeLessThan(70);
    const opts = { ...OPTS, target_tokens: 90, overlap_tokens: 20 };
    const before = buildChunks(blocks, opts);
    const paragraphs = blocks.filter((b) => b.type === 'paragraph');
    expect(paragraphs.length).toBeGreaterThan(10);
    // First or last word replaced: same token count and sentence structure, so no boundary can move.
    const edits = { first: /\b[a-z]{3,8}\b/, last: /\b[a-z]{3,8}\b(?=[^a-z]*$)/ };
    const changed = { first: 0, last: 0 };
    for (const [where, word] of Object.entries(edits) as [keyof typeof edits, RegExp][]) {
      for (const para of paragraphs) {
        const edited = blocks.map((b) => (b === para ? { ...b, text: b.text.replace(word, 'edited') } : b));
        expect(edited.find((b) => b.block_id === para.block_id)!.text).not.toBe(para.text);
        const after = buildChunks(edited, opts);
        expect(after.map((c) => c.block_ids)).toEqual(before.map((c) => c.block_ids));
        let n = 0;
        after.forEach((c, k) => {
          const old = before[k]!;
          const label = `${where} word of ${para.block_id}, chunk ${k}`;
          // A chunk that shows the block only through overlap keeps its id when the edit is elsewhere.
          if (!c.block_ids.includes(para.block_id)) expect(c, label).toEqual(old);
          expect(c.chunk_id !== old.chunk_id, label).toBe(c.text !== old.text);
          if (c.chunk_id !== old.chunk_id) n++;
        });
        expect(n, `${where} word of ${para.block_id}`).toBeGreaterThan(0);
        changed[where] += n;
      }
    }
    // Last words are what the next chunk's overlap repeats: those edits reach more chunks.
    expect(changed.last).toBeGreaterThan(changed.first);
  });

  it('handles overlap appearing and disappearing deterministically', () => {
    const g = new Gen(13);
    const doc = new DocBuilder(1000);
    doc.add('heading', 'A', 1);
    const grow = doc.add('paragraph', g.paragraph(2, 2));
    doc.add('heading', 'B', 1);
    for (let i = 0; i < 6; i++) doc.add('paragraph', g.paragraph(2, 3));
    const opts = { ...OPTS, target_tokens: 80, overlap_tokens: 16 };
    const base = buildChunks(doc.blocks, opts);
    const longer = doc.blocks.map((b) => (b.block_id === grow ? { ...b, text: `${b.text} ${g.paragraph(6, 6)}` } : b));
    const grown = buildChunks(longer, opts);
    expect(buildChunks(longer, opts)).toEqual(grown);
    const inA = (cs: ChunkDraft[]) => cs.filter((c) => c.section_path[0] === 'A');
    expect(inA(base)).toHaveLength(1);
    expect(inA(grown).map((c) => c.chunk_type)).toEqual([
      'section',
      'continuation',
      ...inA(grown)
        .slice(2)
        .map(() => 'continuation'),
    ]);
    expect(overlapOf(inA(grown)[0]!.text, inA(grown)[1]!.text)).not.toBe('');
    // Section B is untouched, ids included; going back restores the original ids exactly.
    const idsB = (cs: ChunkDraft[]) => cs.filter((c) => c.section_path[0] === 'B').map((c) => c.chunk_id);
    expect(idsB(grown)).toEqual(idsB(base));
    expect(buildChunks(doc.blocks, opts)).toEqual(base);
  });
});

describe('buildChunks: speed', () => {
  it('chunks 10,000 blocks well under a second', () => {
    const blocks = generateDoc(21, 10_000);
    expect(blocks.length).toBeGreaterThanOrEqual(10_000);
    buildChunks(blocks.slice(0, 500), OPTS); // warm-up
    const start = performance.now();
    const chunks = buildChunks(blocks, OPTS);
    const ms = performance.now() - start;
    const words = blocks.reduce((n, b) => n + b.text.split(/\s+/).length, 0);
    console.log(`chunking: ${blocks.length} blocks (${words} words) -> ${chunks.length} chunks in ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(2000);
    checkInvariants(blocks, chunks, OPTS);
  });
});

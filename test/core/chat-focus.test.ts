import { describe, expect, it } from 'vitest';
import { focusSources } from '../../server/core/chat/focus.js';
import { buildMessages } from '../../server/core/chat/prompt.js';

const source = (label: string, text: string) => ({
  label,
  chunk_id: `c-${label}`,
  page_numbers: [1],
  section_path: [],
  text,
});

const photo = source(
  'S1',
  [
    'Photosynthesis',
    '',
    'Plants grow in most climates of the world. Chlorophyll in the leaves captures sunlight. The captured energy turns carbon dioxide and water into glucose. Oxygen is released into the air as a by-product. Gardeners water their plants in the morning. Some plants live for centuries.',
  ].join('\n'),
);
const bread = source(
  'S2',
  'Baking bread\n\nKnead the dough for ten minutes. Let the dough rise twice in a warm place. Bake the loaf until the crust sounds hollow.',
);
const table = source('S3', 'Year | Yield\n2019 | 4.1\n2020 | 4.4');

describe('focused sources (what a local model reads)', () => {
  it("keeps the heading and the sentences that share the question's words, in their order, a gap marked", () => {
    const [s1] = focusSources('Which gas is released by photosynthesis as a by-product of sunlight?', [photo]);
    expect(s1!.text).toBe(
      'Photosynthesis\n\nChlorophyll in the leaves captures sunlight. … Oxygen is released into the air as a by-product.',
    );
    expect(s1!.label).toBe('S1');
  });

  it('gives a source none of whose sentences shares a word its opening sentences, and a table its text', () => {
    const out = focusSources('Which gas do leaves release?', [photo, bread, table]);
    expect(out.map((s) => s.label)).toEqual(['S1', 'S2', 'S3']);
    expect(out[1]!.text).toBe(
      'Baking bread\n\nKnead the dough for ten minutes. Let the dough rise twice in a warm place. Bake the loaf until the crust sounds hollow.',
    );
    expect(out[2]!.text).toBe(table.text);
  });

  it('holds five long sources to its budget, each keeping its best sentence, and the prompt shrinks', () => {
    const long = (label: string) =>
      source(
        label,
        Array.from(
          { length: 40 },
          (_, i) => `Sentence ${i} of ${label} talks about the harvest of barley number ${i}.`,
        ).join(' '),
      );
    const sources = ['S1', 'S2', 'S3', 'S4', 'S5'].map(long);
    const out = focusSources('When is the barley harvest?', sources);
    expect(out.map((s) => s.label)).toEqual(['S1', 'S2', 'S3', 'S4', 'S5']);
    expect(out.reduce((n, s) => n + s.text.length, 0)).toBeLessThanOrEqual(1500 + 5 * 10);
    const whole = buildMessages('When is the barley harvest?', sources, [], undefined, 'chunks').at(-1)!.content.length;
    const focused = buildMessages('When is the barley harvest?', sources, [], undefined, 'sentences').at(-1)!.content
      .length;
    expect(focused).toBeLessThan(whole / 3);
  });

  it('cuts a sentence with no full stop, so one source cannot take the whole budget', () => {
    const run = source('S1', `Barley ${'and more barley '.repeat(100)}`);
    const [s1] = focusSources('barley', [run]);
    expect(s1!.text.length).toBe(401);
    expect(s1!.text.endsWith('…')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { attributeByOverlap, checkCitations } from '../../server/core/chat/citations.js';
import { NOT_FOUND_REPLY } from '../../server/core/chat/prompt.js';
import { refersBack } from '../../server/core/chat/retrieve.js';

const sources = [
  {
    label: 'S1',
    chunk_id: 'c-photo',
    page_numbers: [3],
    text: 'Photosynthesis\n\nChlorophyll in the leaves captures sunlight to turn carbon dioxide and water into glucose.',
  },
  {
    label: 'S2',
    chunk_id: 'c-bread',
    page_numbers: [4, 5],
    text: 'Baking bread\n\nKnead the dough, let it rise twice, then bake it.',
  },
];

describe('citations', () => {
  it('keeps cited labels and chunk ids that were retrieved and drops the rest', () => {
    const r = checkCitations(
      'Leaves capture sunlight [S1]. Dough rises twice [S2, S7]. See also [chunk c-bread] and [c-invented].',
      sources,
    );
    expect(r.citations).toEqual([
      { label: 'S1', chunk_id: 'c-photo', page_numbers: [3] },
      { label: 'S2', chunk_id: 'c-bread', page_numbers: [4, 5] },
    ]);
    expect(r.dropped).toEqual(['S7', 'c-invented']);
  });

  it('attributes an answer without tags to the source it shares its words with, or to none', () => {
    expect(attributeByOverlap('Chlorophyll captures sunlight.', sources).map((c) => c.chunk_id)).toEqual(['c-photo']);
    expect(attributeByOverlap('The dough rises twice.', sources).map((c) => c.chunk_id)).toEqual(['c-bread']);
    expect(attributeByOverlap('France won the 1998 world cup.', sources)).toEqual([]);
  });

  it('recognises a model reply that says the sources lack the answer (the answer is then not_found)', () => {
    expect(NOT_FOUND_REPLY.test('NOT FOUND')).toBe(true);
    expect(NOT_FOUND_REPLY.test('The sources do not mention the 1998 world cup.')).toBe(true);
    expect(NOT_FOUND_REPLY.test('Chlorophyll captures sunlight [S1].')).toBe(false);
  });

  it('searches a follow-up together with the previous question only when it points back at it', () => {
    expect(refersBack('Which gas does it release?')).toBe(true);
    expect(refersBack('And the temperature?')).toBe(true);
    expect(refersBack('Who won the 1998 football world cup?')).toBe(false);
  });
});

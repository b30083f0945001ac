import { describe, expect, it } from 'vitest';
import { demoteTablesOfContents, isTableOfContents } from '../../server/core/search/toc.js';

// The first three are chunks as Lectern extracts them from the fixture amsmath-userguide.pdf (its contents
// pages come out as a Markdown table); the rest are the shapes that must not be taken for one.
const AMSMATH_CONTENTS = `Contents

| | | |
| --- | --- | --- |
| 1 | Introduction | 1 |
| 2 | Options for the amsmath package | 2 |
| 3 | Displayed equations | 3 |
| | 3.1 Introduction . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . | 3 |
| | 3.2 Single equations . . . . . . . . . . . . . . . . . . . . . . . . . . . | 4 |
| | 3.3 Split equations without alignment . . . . . . . . . . . . . . . . . | 4 |`;

const AMSMATH_CONTENTS_TAIL = `| | | |
| --- | --- | --- |
| | 5.2 \\mod and its relatives . . . . . . . . . . . . . . . . . . . . . . . . . | 20 |
| 6 | The \\text command | 20 |`;

const PLAIN_CONTENTS = `1 Introduction 1
2 Options for the amsmath package 2
3 Displayed equations 3
3.1 Introduction 3
4 Miscellaneous mathematical features 12`;

describe('tables of contents are told from content', () => {
  it('recognises contents pages: dotted leaders, a Contents section, numbered titles with rising page numbers', () => {
    expect(isTableOfContents(AMSMATH_CONTENTS, ['(Version 2.1)', 'Contents'])).toBe(true);
    expect(isTableOfContents(AMSMATH_CONTENTS_TAIL, ['(Version 2.1)', 'Contents'])).toBe(true);
    expect(isTableOfContents(PLAIN_CONTENTS)).toBe(true);
    expect(isTableOfContents('List of Figures\n1.1 A cat . . . . . 4\n1.2 A dog 7')).toBe(true);
  });

  it('leaves prose, numbered lists, data tables and a page header alone', () => {
    expect(
      isTableOfContents(
        'The \\split environment is for single equations that are too long to fit on one line and hence must be split into multiple lines.',
      ),
    ).toBe(false);
    expect(isTableOfContents('1 Preheat the oven to 220\n2 Knead the dough for 10\n3 Bake it for 35')).toBe(false); // no leaders, numbers not pages of a rising contents
    expect(isTableOfContents('1. Flour 500\n2. Water 350\n3. Salt 10\n4. Yeast 7')).toBe(false);
    expect(
      isTableOfContents(
        '| Animal | Description | Price ($) |\n| --- | --- | --- |\n| Gnat | per gram | 13.65 |\n| Gnu | stuffed | 92.50 |\n| Emu | stuffed | 33.33 |',
      ),
    ).toBe(false);
    expect(isTableOfContents('| 1 | Apples | 30 |\n| 2 | Pears | 5 |\n| 3 | Plums | 12 |')).toBe(false);
    expect(isTableOfContents('CONTENTS iii', ['(Version 2.1)', 'Contents'])).toBe(false);
  });

  it('demotes them below the other results, keeping each group in its order', () => {
    const ranked = [
      { id: 'toc1', toc: true },
      { id: 'a', toc: false },
      { id: 'toc2', toc: true },
      { id: 'b', toc: false },
    ];
    expect(demoteTablesOfContents(ranked, (r) => r.toc).map((r) => r.id)).toEqual(['a', 'b', 'toc1', 'toc2']);
  });
});

/**
 * The text layer as pdf.js gives it with Lectern's patch (patches/pdfjs-dist+*.patch): hex strings read
 * straight from a content stream's bytes, and text content chunks handed from pdf.js's worker half to its API
 * half without a structured clone. Small PDFs written here, whose text is known exactly.
 */
import { describe, expect, it } from 'vitest';
import { extractPdf } from '../../server/core/extract/pdf/index.js';
import { openPdf } from '../../server/core/extract/pdf/pdfjs-loader.js';
import { pdfOfContent } from '../helpers/hostile-files.js';

/** Every item's string of page 1, in the order pdf.js gives them. */
async function itemStrings(pdf: Buffer): Promise<string[]> {
  const { doc } = await openPdf(new Uint8Array(pdf));
  try {
    const page = await doc.getPage(1);
    const content = await page.getTextContent();
    return content.items.flatMap((i) => ('str' in i ? [i.str] : []));
  } finally {
    await doc.destroy();
  }
}

// Hex strings as producers write them: upper and lower case, spaced, broken over lines, an odd number of
// digits (the last one is padded with 0: <4> is "@"), a stray character (ignored), and one at the very end
// of the stream with no closing bracket.
const HEX_LINES = [
  '<48657861646563696D616C>',
  '<73 74 72 69 6e 67 73>',
  '<72656164\n20\r\n7768 6F6C65>',
  '<5A4>',
  '<41zz42>',
];
const HEX_TEXT = ['Hexadecimal', 'strings', 'read whole', 'Z@', 'AB'];

function hexPage(unterminated: string): string {
  const shows = HEX_LINES.map((hex, i) => `1 0 0 1 72 ${700 - 30 * i} Tm ${hex} Tj`).join('\n');
  return `BT /F1 18 Tf\n${shows}\n1 0 0 1 72 500 Tm ${unterminated}`;
}

describe('hex strings in a content stream', () => {
  it('reads them alike from a stored and a deflated stream, up to an unterminated one at the end', async () => {
    const stored = await itemStrings(pdfOfContent(hexPage('<4C617374')));
    const deflated = await itemStrings(pdfOfContent(hexPage('<4C617374'), true));
    const words = stored.filter((s) => s.trim() !== '');
    expect(words).toEqual([...HEX_TEXT]);
    expect(deflated).toEqual(stored);
  });

  it('gives the same blocks as the same text written as literal strings', async () => {
    const literal = HEX_TEXT.map((t, i) => `1 0 0 1 72 ${700 - 30 * i} Tm (${t}) Tj`).join('\n');
    const fromHex = await extractPdf(pdfOfContent(`${hexPage('')}ET`));
    const fromLiteral = await extractPdf(pdfOfContent(`BT /F1 18 Tf\n${literal}\nET`));
    expect(fromHex.blocks.map((b) => b.text).join(' ')).toContain('Hexadecimal strings read whole');
    expect(fromHex.blocks).toEqual(fromLiteral.blocks);
  });
});

describe('text content of many items', () => {
  it('keeps every item, in order, across the chunks pdf.js sends them in', async () => {
    // 300 words, each at a place of its own: an item each, sent in many chunks.
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const shows = words
      .map((w, i) => `1 0 0 1 ${40 + (i % 10) * 52} ${800 - Math.floor(i / 10) * 24} Tm (${w}) Tj`)
      .join('\n');
    const pdf = pdfOfContent(`BT /F1 10 Tf\n${shows}\nET`, true);
    const first = await itemStrings(pdf);
    expect(first.filter((s) => s.trim() !== '')).toEqual(words);
    // A second reading in the same thread sees the same items: nothing was shared between the two.
    expect(await itemStrings(pdf)).toEqual(first);
  });
});

/**
 * Merging one page's readings in several languages word by word: the page's surest reading gives the
 * structure, each word takes the best reading of its box (an accent one model cannot write wins a near tie,
 * otherwise the surer reading, then the one more languages agree on), and a word split differently keeps
 * the base's text.
 */
import { describe, expect, it } from 'vitest';

import { mergeReadings, type PageReading } from '../../server/core/ocr/merge-readings.js';
import type { TessWord } from '../../server/core/ocr/ocr-lines.js';

/** One line of words, each 100 px wide with a 20 px gap and moved `shift` px right, as tesseract.js nests them. */
function shiftedReading(shift: number, ...words: Array<[string, number]>): PageReading {
  const tess: TessWord[] = words.map(([text, confidence], i) => ({
    text,
    confidence,
    bbox: { x0: i * 120 + shift, y0: 10, x1: i * 120 + 100 + shift, y1: 40 },
  }));
  const confidence = words.reduce((s, [, c]) => s + c, 0) / Math.max(1, words.length);
  return {
    blocks: [{ paragraphs: [{ lines: [{ words: tess, bbox: { x0: 0, y0: 10, x1: words.length * 120, y1: 40 } }] }] }],
    confidence,
  };
}

const reading = (...words: Array<[string, number]>): PageReading => shiftedReading(0, ...words);

const textOf = (r: PageReading): string =>
  r.blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((w) => w.text)))).join(' ');

describe('mergeReadings', () => {
  it('keeps the accented reading where a model without the letter read it bare at the same confidence', () => {
    const eng = reading(['Uber', 96], ['die', 96], ['Baume', 23], ['Apfel,', 96]);
    const deu = reading(['Über', 96], ['die', 96], ['Bäume', 96], ['Äpfel,', 95]);
    expect(textOf(mergeReadings([eng, deu]))).toBe('Über die Bäume Äpfel,');
    // The order of the languages does not matter.
    expect(textOf(mergeReadings([deu, eng]))).toBe('Über die Bäume Äpfel,');
  });

  it('takes the surer reading of each word, whichever reading is the base', () => {
    const fra = reading(['café', 96], ['Mâlaga', 85], ['naïve', 96], ['Kônigstrafbe', 0]);
    const spa = reading(['café', 96], ['Málaga', 96], ['naive', 89], ['KóonigstraBSe', 6]);
    const deu = reading(['cafe', 96], ['Mälaga', 91], ['naive', 93], ['Königstraße', 96]);
    const merged = mergeReadings([fra, spa, deu]);
    expect(textOf(merged)).toBe('café Málaga naïve Königstraße');
    expect(merged.confidence).toBeCloseTo((96 + 96 + 96 + 96) / 4);
  });

  it('settles a tie of different accents by how many readings agree', () => {
    const spa = reading(['Zúrich', 96], ['war', 96]);
    const fra = reading(['Zürich', 96], ['war', 95]);
    const deu = reading(['Zürich', 95], ['war', 96]);
    expect(textOf(mergeReadings([spa, fra, deu]))).toBe('Zürich war');
  });

  it('does not take an accent read much less surely than the bare letter', () => {
    const eng = reading(['resume', 95], ['today', 96]);
    const fra = reading(['résume', 60], ['today', 96]);
    expect(textOf(mergeReadings([eng, fra]))).toBe('resume today');
  });

  it('keeps the base text of a word another reading split or placed differently', () => {
    const base = reading(['Gästehaus', 90], ['near', 96]);
    const moved = shiftedReading(70, ['Gastehaus', 96], ['near', 80]);
    expect(textOf(mergeReadings([base, moved]))).toBe('Gästehaus near');
  });

  it('passes a single reading through and answers an empty page for none', () => {
    const only = reading(['alone', 90]);
    expect(mergeReadings([only])).toBe(only);
    expect(mergeReadings([])).toEqual({ blocks: [], confidence: 0 });
  });
});

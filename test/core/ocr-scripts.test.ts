/**
 * The pieces that put other scripts in order, tested on their own: right-to-left lines of a text layer
 * (runs sorted left to right read from the right, embedded Latin and numbers kept), CJK words joined
 * without spaces, the language detector's refusals, and the language code checks.
 */
import { describe, expect, it } from 'vitest';

import { detectLanguage } from '../../server/core/extract/detect-language.js';
import { isRtlLine, logicalOrder } from '../../server/core/extract/pdf/bidi-order.js';
import { joinWords } from '../../server/core/ocr/ocr-lines.js';
import { ocrLanguageOption, splitLanguages } from '../../server/core/ocr/ocr-languages.js';
import { tempDir } from '../helpers/app.js';

const runs = (...texts: string[]) => texts.map((text) => ({ text }));
const read = (...texts: string[]) =>
  logicalOrder(runs(...texts))
    .map((r) => r.text)
    .join(' ');

describe('right-to-left lines', () => {
  it('reads runs sorted left to right from the right, keeping a stretch of Latin or digits in its own order', () => {
    // As they stand on the page, left to right.
    expect(read('الباكر.', 'الصباح', 'في', 'ذهب')).toBe('ذهب في الصباح الباكر.');
    expect(read('في', 'ISO', '9001', 'شهادة')).toBe('شهادة ISO 9001 في');
    expect(read('בעברית.', 'שלום')).toBe('שלום בעברית.');
  });

  it('leaves left-to-right lines alone, also with a word of Arabic in them', () => {
    expect(read('The', 'word', 'سلام', 'means', 'peace')).toBe('The word سلام means peace');
    expect(isRtlLine(runs('hello', 'سلام'))).toBe(false);
    expect(isRtlLine(runs('hello', 'سلام عليكم'))).toBe(true);
  });
});

describe('CJK text from OCR words', () => {
  it('joins CJK characters without spaces and keeps spaces elsewhere', () => {
    expect(joinWords(['年', '度', '报告'])).toBe('年度报告');
    expect(joinWords(['我们', '使用', 'Lectern', '软件', '。'])).toBe('我们使用 Lectern 软件。');
    expect(joinWords(['これは', 'テスト', 'です'])).toBe('これはテストです');
    expect(joinWords(['Die', 'Straße'])).toBe('Die Straße');
  });
});

describe('language detection', () => {
  it('says nothing about too little text, code and tables, and names the OCR language of what it finds', () => {
    expect(detectLanguage([{ text: 'Figure 3', type: 'caption' }])).toBeNull();
    expect(
      detectLanguage([{ text: 'const x = require("a"); function f() { return x.y.z; } '.repeat(5), type: 'code' }]),
    ).toBeNull();
    const fr = detectLanguage([
      {
        text: 'Le gouvernement a décidé hier que les nouvelles règles entreront en vigueur au début de l’année prochaine.',
        type: 'paragraph',
      },
    ]);
    expect(fr).toMatchObject({ code: 'fra', ocr_language: 'fra', source: 'text' });
    expect(fr?.confidence).toBeGreaterThan(0);
  });
});

describe('ocr_language', () => {
  const dir = tempDir('lectern-langs-');
  it('splits and normalises a tesseract language list', () => {
    expect(splitLanguages(' eng + deu+eng')).toEqual(['eng', 'deu']);
    expect(ocrLanguageOption(undefined, dir)).toBe('eng');
    expect(ocrLanguageOption(' eng+eng ', dir)).toBe('eng');
  });

  it('refuses unknown and malformed codes (400), missing ones (409) and too many at once', () => {
    const codeOf = (raw: string) => {
      try {
        ocrLanguageOption(raw, dir);
        return null;
      } catch (e) {
        return [(e as { code: string }).code, (e as { status: number }).status];
      }
    };
    expect(codeOf('../../etc/passwd')).toEqual(['OCR_LANGUAGE_UNKNOWN', 400]);
    expect(codeOf('eng+')).toEqual(['OCR_LANGUAGE_UNKNOWN', 400]);
    expect(codeOf('eng+jpn')).toEqual(['OCR_LANGUAGE_MISSING', 409]);
    expect(codeOf('eng+deu+fra+spa+ita')).toEqual(['VALIDATION_FAILED', 400]);
  });
});

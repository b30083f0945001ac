import { describe, expect, it } from 'vitest';
import { fullTextWords } from '../../server/store/full-text-words.js';

/** What a tokenizer splitting on white space would read. */
const pieces = (text: string): string[] => fullTextWords(text).split(/\s+/).filter(Boolean);

describe('the text both full-text indexes are given', () => {
  it('gives ASCII text as it is, so English is tokenized and stemmed as before', () => {
    for (const text of ['The Sicilian Defence, e.g. 1. e4 c5!', 'user@example.com well-known 3.14 foo_bar', ''])
      expect(fullTextWords(text)).toBe(text);
  });

  it('cuts Chinese, Japanese and Thai into words and makes their punctuation spaces', () => {
    expect(pieces('我们研究机器学习的方法。')).toEqual(['我们', '研究', '机器', '学习', '的', '方法']);
    expect(pieces('東京大学で自然言語処理を研究しています。')).toEqual([
      '東京',
      '大学',
      'で',
      '自然',
      '言語',
      '処理',
      'を',
      '研究',
      'し',
      'てい',
      'ます',
    ]);
    expect(pieces('ภาษาไทยง่ายนิดเดียว')).toEqual(['ภาษา', 'ไทย', 'ง่าย', 'นิด', 'เดียว']);
    expect(pieces('「」。、')).toEqual([]);
  });

  it('folds Latin diacritics, keeps other marks and ASCII punctuation, and takes non-ASCII quotes off words', () => {
    expect(fullTextWords('„Die alten Häuser“ — Straße, Ærø, café')).toBe(' Die alten Hauser    Straße, Ærø, cafe');
    // A decomposed é (e + U+0301) folds as the composed one does; Japanese voicing marks stay.
    expect(fullTextWords('cafe\u0301 がガ')).toBe('cafe が ガ');
    // In English text with a non-ASCII character, PostgreSQL still sees its hyphenated words and numbers.
    expect(fullTextWords('IL-1β well-known 3.14 AI研究 don’t\u00a0stop')).toBe(
      'IL-1β well-known 3.14 AI 研究 don’t stop',
    );
  });
});

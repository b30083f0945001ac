import { describe, expect, it } from 'vitest';
import { fullTextWords } from '../../server/store/full-text-words.js';

describe('the words both full-text indexes are given', () => {
  it('gives ASCII text as it is, so English is tokenized and stemmed as before', () => {
    for (const text of ['The Sicilian Defence, e.g. 1. e4 c5!', 'user@example.com well-known 3.14 foo_bar', '']) expect(fullTextWords(text)).toBe(text);
  });

  it('cuts Chinese, Japanese and Thai into words and drops what is no word', () => {
    expect(fullTextWords('我们研究机器学习的方法。')).toBe('我们 研究 机器 学习 的 方法');
    expect(fullTextWords('東京大学で自然言語処理を研究しています。')).toBe('東京 大学 で 自然 言語 処理 を 研究 し てい ます');
    expect(fullTextWords('ภาษาไทยง่ายนิดเดียว')).toBe('ภาษา ไทย ง่าย นิด เดียว');
    expect(fullTextWords('「」。、')).toBe('');
  });

  it('folds Latin diacritics, keeps other marks, and takes quotes off German words', () => {
    expect(fullTextWords('„Die alten Häuser“ — Straße, Ærø, café')).toBe('Die alten Hauser Straße Ærø cafe');
    // A decomposed é (e + U+0301) folds as the composed one does; Japanese voicing marks stay.
    expect(fullTextWords('cafe\u0301 がガ')).toBe('cafe が ガ');
  });
});

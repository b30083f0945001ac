import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ftsQuery } from '../../server/store/sqlite/full-text.js';
import { KEYWORD_WEIGHT, scoreFusion } from '../../server/core/search/fuse.js';

describe('keyword query', () => {
  it('quotes every word so user text is never FTS5 syntax, and ORs them for BM25', () => {
    expect(ftsQuery('NEAR(a b) AND title:"x*" OR -y')).toBe(
      '"near" OR "a" OR "b" OR "and" OR "title" OR "x" OR "or" OR "y"',
    );
    expect(ftsQuery('  ?! ')).toBeUndefined();
    // Cut into words as the index is given them: Latin diacritics folded (FTS5 folds them too), Chinese and
    // Japanese split by ICU's dictionaries.
    expect(ftsQuery('Über café 42')).toBe('"uber" OR "cafe" OR "42"');
    expect(ftsQuery('机器学习的方法')).toBe('"机器" OR "学习" OR "的" OR "方法"');
    expect(ftsQuery('自然言語処理')).toBe('"自然" OR "言語" OR "処理"');
  });

  it('is accepted by SQLite FTS5 whatever the input', () => {
    const db = new Database(':memory:');
    db.exec(
      "CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2'); INSERT INTO t VALUES ('Running near the cafe')",
    );
    for (const q of ['NEAR(run cafe)', 'run* OR "', 'café: (runs)', 'AND OR NOT']) {
      const match = ftsQuery(q)!;
      expect(() => db.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(match), q).not.toThrow();
    }
    expect(db.prepare('SELECT count(*) n FROM t WHERE t MATCH ?').get(ftsQuery('runs café'))).toEqual({ n: 1 });
  });
});

describe('hybrid score fusion', () => {
  const kw = (...pairs: [number, number][]) => pairs.map(([id, score]) => ({ id, score }));

  it("weights each list's scores scaled by its best: 0.4 × keyword + 0.6 × vector", () => {
    expect(KEYWORD_WEIGHT).toBe(0.4);
    const fused = scoreFusion(kw([1, 20], [2, 10]), kw([2, 0.8], [1, 0.4]));
    // 1: 0.4 × 20/20 + 0.6 × 0.4/0.8 = 0.7; 2: 0.4 × 10/20 + 0.6 × 0.8/0.8 = 0.8.
    expect(fused.map((c) => c.id)).toEqual([2, 1]);
    expect(fused[0]!.score).toBeCloseTo(0.8);
    expect(fused[1]!.score).toBeCloseTo(0.7);
    // With the keyword list weighted above the vector list, the same lists order the other way.
    expect(scoreFusion(kw([1, 20], [2, 10]), kw([2, 0.8], [1, 0.4]), 0.7).map((c) => c.id)).toEqual([1, 2]);
  });

  it('keeps score gaps that rank fusion drops: a clear win in one list beats a near tie in the other', () => {
    // Ranks alone (RRF) would tie 1 and 2; the keyword gap (30 vs 3) is large, the vector gap (0.50 vs 0.49) small.
    const fused = scoreFusion(kw([1, 30], [2, 3]), kw([2, 0.5], [1, 0.49]));
    expect(fused.map((c) => c.id)).toEqual([1, 2]);
  });

  it("gives a candidate one list missed that list's lowest score, and is unmoved by a scale factor", () => {
    const fused = scoreFusion(kw([1, 8], [2, 4]), kw([3, 0.9], [1, 0.6]));
    const score = new Map(fused.map((c) => [c.id, c.score]));
    expect(score.get(3)).toBeCloseTo(0.4 * (4 / 8) + 0.6 * 1);
    expect(score.get(2)).toBeCloseTo(0.4 * (4 / 8) + 0.6 * (0.6 / 0.9));
    expect(score.get(1)).toBeCloseTo(0.4 + 0.6 * (0.6 / 0.9));
    const scaledUp = scoreFusion(kw([1, 800], [2, 400]), kw([3, 0.9], [1, 0.6]));
    expect(scaledUp.map((c) => c.id)).toEqual(fused.map((c) => c.id));
  });

  it('orders by the other list alone when one is empty, and by id on ties', () => {
    expect(scoreFusion([], kw([5, 0.2], [4, 0.7])).map((c) => c.id)).toEqual([4, 5]);
    expect(scoreFusion(kw([9, 1], [7, 1]), []).map((c) => c.id)).toEqual([7, 9]);
    expect(scoreFusion([], [])).toEqual([]);
  });
});

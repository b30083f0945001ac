import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ftsQuery } from '../../server/core/search/candidates.js';
import { reciprocalRankFusion, RRF_K } from '../../server/core/search/fuse.js';

describe('keyword query', () => {
  it('quotes every word so user text is never FTS5 syntax, and ORs them for BM25', () => {
    expect(ftsQuery('NEAR(a b) AND title:"x*" OR -y')).toBe('"near" OR "a" OR "b" OR "and" OR "title" OR "x" OR "or" OR "y"');
    expect(ftsQuery('  ?! ')).toBeUndefined();
    expect(ftsQuery('Über café 42')).toBe('"über" OR "café" OR "42"');
  });

  it('is accepted by SQLite FTS5 whatever the input', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2'); INSERT INTO t VALUES ('Running near the cafe')");
    for (const q of ['NEAR(run cafe)', 'run* OR "', 'café: (runs)', 'AND OR NOT']) {
      const match = ftsQuery(q)!;
      expect(() => db.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(match), q).not.toThrow();
    }
    expect(db.prepare('SELECT count(*) n FROM t WHERE t MATCH ?').get(ftsQuery('runs café'))).toEqual({ n: 1 });
  });
});

describe('reciprocal rank fusion', () => {
  it('adds 1/(k + rank) over the lists, so agreement beats one strong rank', () => {
    const fused = reciprocalRankFusion([
      [{ id: 1, score: 0.9 }, { id: 2, score: 0.8 }],
      [{ id: 2, score: 12 }, { id: 3, score: 11 }],
    ]);
    expect(fused.map((c) => c.id)).toEqual([2, 1, 3]);
    expect(fused[0]!.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused[1]!.score).toBeCloseTo(1 / (RRF_K + 1));
  });

  it('ignores the lists\' own score scales', () => {
    const a = reciprocalRankFusion([[{ id: 1, score: 1e9 }, { id: 2, score: 0 }], [{ id: 2, score: 1 }, { id: 1, score: 0.5 }]]);
    expect(a[0]!.score).toBeCloseTo(a[1]!.score);
  });
});

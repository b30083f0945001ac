import { describe, expect, it } from 'vitest';
import { differences } from './compare.js';

describe('differences between what an older and a newer version answer', () => {
  it('allows keys the newer answer adds, at any depth', () => {
    expect(
      differences({ a: 1, b: { c: [1, { d: 'x' }] } }, { a: 1, z: 0, b: { c: [1, { d: 'x', e: null }], f: [] } }),
    ).toEqual([]);
  });

  it('lists a missing key, a changed value, a changed type, and arrays of another length or order', () => {
    expect(
      differences(
        { a: 1, b: 'x', c: null, d: [1, 2], e: [1, 2], f: { g: 1 } },
        { a: 1.5, c: 0, d: [2, 1], e: [1], f: [1] },
      ),
    ).toEqual([
      '$.a: expected 1, got 1.5',
      '$.b: missing (expected "x")',
      '$.c: expected null, got 0',
      '$.d[0]: expected 1, got 2',
      '$.d[1]: expected 2, got 1',
      '$.e: expected 2 items, got 1',
      '$.f: expected an object, got [1]',
    ]);
    // An item the newer answer adds to an array is a difference: lists keep their length.
    expect(differences([{ id: 'a' }], [{ id: 'a' }, { id: 'b' }])).toEqual(['$: expected 1 items, got 2']);
  });

  it('accepts a named change only for its key and exactly its values', () => {
    const changes = [{ key: 'indent_level', from: null, to: 0, why: 'integer now' }];
    expect(differences({ x: [{ indent_level: null }] }, { x: [{ indent_level: 0 }] }, changes)).toEqual([]);
    expect(differences({ indent_level: null }, { indent_level: 1 }, changes)).toEqual([
      '$.indent_level: expected null, got 1',
    ]);
    expect(differences({ level: null }, { level: 0 }, changes)).toEqual(['$.level: expected null, got 0']);
    expect(differences({ indent_level: 2 }, { indent_level: 2 }, changes)).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenizer } from '../../server/core/embedding/tokenizer.js';
import { repoRoot } from '../helpers/app.js';
import { ensureTestModels } from '../helpers/test-models.js';

// Ids of the Rust `tokenizers` crate (the Python package in .venv, scripts/install.sh) for tokenizers of every
// kind Lectern runs, trained by test/helpers/tokenizer-reference.py on generated multilingual text: the
// TypeScript runner must give the same ids for every text.

interface Reference {
  tokenizers: Record<string, string>;
  texts: string[];
  ids: Record<string, number[][]>;
}

const KINDS = [
  'spm-unigram-nmt-nfkc',
  'unigram-trained',
  'bpe-byte-level',
  'bpe-split-regex',
  'bpe-byte-fallback',
  'bpe-unk-suffix',
  'wordpiece-trained',
  'wordpiece-nfkc-digits',
  'minilm-unigram',
];

let dir = '';
let ref: Reference;

beforeAll(async () => {
  const { minilm } = await ensureTestModels();
  dir = mkdtempSync(join(tmpdir(), 'lectern-tokenizers-'));
  const { stdout } = await promisify(execFile)(
    join(repoRoot, '.venv', 'bin', 'python'),
    ['-B', join(repoRoot, 'test', 'helpers', 'tokenizer-reference.py'), dir, minilm.tokenizer],
    { maxBuffer: 64 << 20 },
  );
  ref = JSON.parse(stdout) as Reference;
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tokenizer.json runner against the tokenizers crate', () => {
  it.each(KINDS)('%s: the same ids for every text', (kind) => {
    const path = ref.tokenizers[kind];
    expect(path, kind).toBeDefined();
    const tokenizer = createTokenizer(path!);
    const expected = ref.ids[kind]!;
    expect(ref.texts.length).toBeGreaterThan(250);
    const wrong = ref.texts.flatMap((text, i) => {
      const ids = tokenizer.encode(text, 1_000_000).ids;
      return JSON.stringify(ids) === JSON.stringify(expected[i]) ? [] : [{ text, ids, expected: expected[i] }];
    });
    expect(wrong.slice(0, 3)).toEqual([]);
    expect(wrong.length).toBe(0);
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe('tokenizer.json runner: limits and refusals', () => {
  it("cuts a long text to maxLen keeping the template's special tokens, and counts without them", () => {
    const tokenizer = createTokenizer(ref.tokenizers['spm-unigram-nmt-nfkc']!);
    const at = ref.texts.findIndex((_, i) => ref.ids['spm-unigram-nmt-nfkc']![i]!.length > 40);
    const full = ref.ids['spm-unigram-nmt-nfkc']![at]!;
    const cut = tokenizer.encode(ref.texts[at]!, 16);
    // XLM-R's template: <s> (0) … </s> (2).
    expect(cut.ids).toEqual([...full.slice(0, 15), 2]);
    expect(cut.attentionMask).toEqual(Array(16).fill(1));
    expect(tokenizer.count(ref.texts[at]!)).toBe(full.length - 2);
    expect(() => tokenizer.encode('x', 1)).toThrow(/room for the special tokens \(<s> <\/s>\)/);
  });

  it('refuses each component it does not run with MODEL_UNSUPPORTED naming it, and a file that is no tokenizer', () => {
    const spec = JSON.parse(readFileSync(ref.tokenizers['bpe-split-regex']!, 'utf8'));
    const refused = (changes: Record<string, unknown>) => {
      const path = join(dir, 'changed.json');
      writeFileSync(path, JSON.stringify({ ...spec, ...changes }));
      try {
        createTokenizer(path);
      } catch (err) {
        return { code: (err as { code?: string }).code, message: (err as Error).message };
      }
      return undefined;
    };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ pre_tokenizer: { type: 'UnicodeScripts' } }, 'MODEL_UNSUPPORTED', /^pre-tokenizer UnicodeScripts is not/],
      [{ normalizer: { type: 'Nmt' } }, 'MODEL_UNSUPPORTED', /^normalizer Nmt is not supported/],
      [{ model: { type: 'WordLevel', vocab: {} } }, 'MODEL_UNSUPPORTED', /^model WordLevel is not supported/],
      [{ post_processor: { type: 'Whatever' } }, 'MODEL_UNSUPPORTED', /^post-processor Whatever is not supported/],
      [
        { pre_tokenizer: { type: 'Split', pattern: { Regex: '\\p{L}++' }, behavior: 'Isolated', invert: false } },
        'MODEL_UNSUPPORTED',
        /^pre-tokenizer Split: the regular expression's possessive quantifier \+\+ is not supported/,
      ],
      [
        { model: { ...spec.model, merges: [['zzz', 'yyy']] } },
        'MODEL_FILE_INVALID',
        /merge 0 \(zzz yyy\) names a token/,
      ],
      [{ model: null }, 'MODEL_FILE_INVALID', /^it has no model/],
    ];
    for (const [changes, code, message] of cases)
      expect(refused(changes), JSON.stringify(changes)).toMatchObject({
        code,
        message: expect.stringMatching(message),
      });
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '{"model": ');
    expect(() => createTokenizer(notJson)).toThrow(/^it is not JSON/);
  });
});

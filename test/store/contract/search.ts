import { describe, expect, it } from 'vitest';
import type { NewChunkVector } from '../../../server/store/repos/collections-repo.js';
import type { Store } from '../../../server/store/store.js';
import type { StoreFactory } from './harness.js';
import type { SeedsOf } from './seeds.js';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const collection = (name: string, dimensions = 4) => ({
  name,
  provider: 'local',
  base_url: null,
  model: 'm',
  dimensions,
  quantization: 'f32' as const,
  created_at: at(0),
});
/** A chunk of a seeded job; what is left out takes the usual defaults (approved, a section on page 1). */
interface SeedChunk {
  chunk_id: string;
  text: string;
  section_path: string[];
  status?: string;
  edited_text?: string | null;
  chunk_type?: string;
  page_numbers?: number[];
}

/** A job (finalized unless told) holding these chunks, in this order. */
async function chunkedJob(
  seedsOf: SeedsOf,
  store: Store,
  jobId: string,
  chunks: readonly SeedChunk[],
  status = 'finalized',
) {
  const seeds = seedsOf(store);
  await seeds.job({ job_id: jobId, bot_id: null, status, created_at: at(0) });
  for (const [i, c] of chunks.entries())
    await seeds.chunk({ ...c, job_id: jobId, order_index: i, status: c.status ?? 'approved' });
}

const chunk = (chunk_id: string, text: string, more: Partial<SeedChunk> = {}): SeedChunk => ({
  chunk_id,
  text,
  section_path: ['Intro'],
  ...more,
});
const row = (c: string, key: number, job_id: string, chunk_id: string, text: string): NewChunkVector => ({
  collection: c,
  key,
  job_id,
  chunk_id,
  text,
  text_hash: `h-${chunk_id}-${text.length}`,
  language: null,
  created_at: at(1),
});
const cosine = (a: number[], b: number[]) => {
  const dot = a.reduce((s, x, i) => s + x * b[i]!, 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
};

export function collectionsContract(open: StoreFactory, seedsOf: SeedsOf): void {
  describe('collections', () => {
    it('creates a collection once, finds and lists it, and hands out keys that never repeat', async () => {
      const store = await open();
      expect(await store.collections.find('a')).toBeNull();
      const a = await store.collections.ensure({ ...collection('a'), base_url: 'http://embed.example' });
      expect(a).toEqual({
        name: 'a',
        provider: 'local',
        base_url: 'http://embed.example',
        model: 'm',
        dimensions: 4,
        quantization: 'f32',
        metric: 'cos',
        next_key: 1,
        index_version: 0,
        vector_index: null,
        created_at: at(0),
        updated_at: at(0),
      });
      // A second ensure of the name keeps the collection as it is.
      expect(await store.collections.ensure({ ...collection('a', 8), model: 'other' })).toEqual(a);
      await store.collections.ensure(collection('0b'));
      expect((await store.collections.list()).map((c) => c.name)).toEqual(['0b', 'a']);
      expect((await store.collections.list(['a', 'missing'])).map((c) => c.name)).toEqual(['a']);
      expect(await store.collections.list([])).toEqual([]);
      expect(await store.collections.reserveKeys('a', 3)).toBe(1);
      expect(await store.collections.reserveKeys('a', 0)).toBe(4);
      expect(await store.collections.reserveKeys('a', 2)).toBe(4);
      expect((await store.collections.find('a'))?.next_key).toBe(6);
      await store.collections.bumpVersions(['a'], at(3));
      await store.collections.bumpVersions(['a', '0b'], at(4));
      await store.collections.bumpVersions([], at(5));
      expect(await store.collections.find('a')).toMatchObject({ index_version: 2, updated_at: at(4) });
      expect(await store.collections.find('0b')).toMatchObject({ index_version: 1, updated_at: at(4) });
    });

    it('starts an embed only from the states named, once, and ends it indexed or back at rest', async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'j1', [chunk('c1', 'one')]);
      await chunkedJob(seedsOf, store, 'j2', [chunk('c1', 'two')], 'ready_for_review');
      await store.collections.ensure(collection('a'));
      const embeddable = ['finalized', 'indexed'];
      expect(await store.collections.jobIndex('j1')).toBeNull();
      expect(await store.collections.beginEmbed('j2', 'a', 1, embeddable, at(1))).toBe(false);
      expect(await store.collections.beginEmbed('nope', 'a', 1, embeddable, at(1))).toBe(false);
      expect(await store.collections.beginEmbed('j1', 'a', 5, embeddable, at(1))).toBe(true);
      // It is embedding now: a second start is refused.
      expect(await store.collections.beginEmbed('j1', 'a', 5, embeddable, at(1))).toBe(false);
      expect(await store.collections.jobIndex('j1')).toEqual({
        job_id: 'j1',
        collection: 'a',
        chunks_embedded: 0,
        chunks_total: 5,
        indexed_at: null,
        updated_at: at(1),
      });
      await store.collections.progress('j1', 3, at(2));
      expect(await store.collections.jobIndex('j1')).toMatchObject({
        chunks_embedded: 3,
        chunks_total: 5,
        updated_at: at(2),
      });
      // Never indexed before: a failed embed leaves it finalized.
      await store.collections.restEmbed('j1', { code: 'EMBEDDING_PROVIDER_FAILED', message: 'down' }, at(3));
      expect(await store.collections.beginEmbed('j1', 'a', 5, ['indexed'], at(4))).toBe(false);
      expect(await store.collections.beginEmbed('j1', 'a', 5, ['finalized'], at(4))).toBe(true);
      expect(await store.collections.finishEmbed('j1', 4, at(5))).toBe(true);
      expect(await store.collections.finishEmbed('j1', 4, at(6))).toBe(false);
      expect(await store.collections.jobIndex('j1')).toEqual({
        job_id: 'j1',
        collection: 'a',
        chunks_embedded: 4,
        chunks_total: 4,
        indexed_at: at(5),
        updated_at: at(5),
      });
      // Indexed before: a re-embed into another collection that fails goes back to indexed, where it was.
      await store.collections.ensure(collection('b'));
      expect(await store.collections.beginEmbed('j1', 'b', 2, ['indexed'], at(7))).toBe(true);
      expect(await store.collections.jobIndex('j1')).toMatchObject({
        collection: 'b',
        chunks_embedded: 0,
        chunks_total: 2,
        indexed_at: at(5),
      });
      await store.collections.restEmbed('j1', null, at(8));
      expect(await store.collections.beginEmbed('j1', 'b', 2, ['finalized'], at(9))).toBe(false);
      // restEmbed leaves a job that is not embedding alone.
      await store.collections.restEmbed('j2', null, at(9));
      expect(await store.collections.beginEmbed('j2', 'a', 1, ['finalized', 'indexed'], at(9))).toBe(false);
    });

    it('puts every embed a stop cut off back to rest', async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'fresh', [chunk('c', 'x')]);
      await chunkedJob(seedsOf, store, 'again', [chunk('c', 'x')]);
      await chunkedJob(seedsOf, store, 'idle', [chunk('c', 'x')]);
      await store.collections.ensure(collection('a'));
      await store.collections.beginEmbed('again', 'a', 1, ['finalized'], at(1));
      await store.collections.finishEmbed('again', 1, at(2));
      expect(await store.collections.beginEmbed('fresh', 'a', 1, ['finalized'], at(3))).toBe(true);
      expect(await store.collections.beginEmbed('again', 'a', 1, ['indexed'], at(3))).toBe(true);
      expect(await store.collections.restInterruptedEmbeds(at(4))).toBe(2);
      expect(await store.collections.restInterruptedEmbeds(at(5))).toBe(0);
      expect(await store.collections.beginEmbed('fresh', 'a', 1, ['finalized'], at(6))).toBe(true);
      expect(await store.collections.beginEmbed('again', 'a', 1, ['indexed'], at(6))).toBe(true);
      expect(await store.collections.beginEmbed('idle', 'a', 1, ['finalized'], at(6))).toBe(true);
    });

    it('keeps the vector rows of jobs, replaces them in one go, and reads hits with their chunks', async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'j1', [
        chunk('c1', 'alpha', { chunk_type: 'table', page_numbers: [2, 3], section_path: ['A', 'B'] }),
        chunk('c2', 'beta'),
      ]);
      await chunkedJob(seedsOf, store, 'j2', [chunk('c1', 'gamma')]);
      await store.collections.ensure(collection('a'));
      await store.collections.ensure(collection('b'));
      await store.collections.replaceVectors(
        [],
        [
          row('a', 1, 'j1', 'c1', 'alpha'),
          row('a', 2, 'j1', 'c2', 'beta'),
          row('b', 1, 'j1', 'c1', 'alpha'),
          row('a', 3, 'j2', 'c1', 'gamma'),
        ],
      );
      const rows = await store.collections.vectorsOfJob('j1');
      expect(
        rows.map(({ id: _, ...r }) => r).sort((x, y) => x.collection.localeCompare(y.collection) || x.key - y.key),
      ).toEqual([
        { collection: 'a', key: 1, job_id: 'j1', chunk_id: 'c1', text_hash: 'h-c1-5' },
        { collection: 'a', key: 2, job_id: 'j1', chunk_id: 'c2', text_hash: 'h-c2-4' },
        { collection: 'b', key: 1, job_id: 'j1', chunk_id: 'c1', text_hash: 'h-c1-5' },
      ]);
      expect(await store.collections.countVectors('j1', 'a')).toBe(2);
      expect(await store.collections.countVectors('j1', 'b')).toBe(1);
      expect(await store.collections.countVectors('j2', 'b')).toBe(0);
      const a1 = rows.find((r) => r.collection === 'a' && r.key === 1)!;
      const hits = await store.collections.hits([a1.id, 999_999]);
      expect(hits).toEqual([
        {
          id: a1.id,
          key: 1,
          job_id: 'j1',
          chunk_id: 'c1',
          text: 'alpha',
          text_hash: 'h-c1-5',
          chunk_type: 'table',
          page_numbers: [2, 3],
          section_path: ['A', 'B'],
          block_ids: [],
        },
      ]);
      expect(await store.collections.hits([])).toEqual([]);
      // Removing and adding together: the changed chunk gets a new key.
      await store.collections.replaceVectors([a1.id], [row('a', 4, 'j1', 'c1', 'alpha!')]);
      expect(
        (await store.collections.vectorsOfJob('j1'))
          .filter((r) => r.collection === 'a')
          .map((r) => r.key)
          .sort(),
      ).toEqual([2, 4]);
      expect(await store.collections.hits([a1.id])).toEqual([]);
    });

    it("removes a collection with its vector rows and the jobs' membership in it", async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'j1', [chunk('c1', 'volcano ash')]);
      await store.collections.ensure(collection('a'));
      await store.collections.ensure(collection('b'));
      await store.collections.beginEmbed('j1', 'a', 1, ['finalized'], at(1));
      await store.collections.replaceVectors(
        [],
        [row('a', 1, 'j1', 'c1', 'volcano ash'), row('b', 1, 'j1', 'c1', 'volcano ash')],
      );
      await store.collections.remove('a');
      expect(await store.collections.find('a')).toBeNull();
      expect(await store.collections.jobIndex('j1')).toBeNull();
      expect((await store.collections.vectorsOfJob('j1')).map((r) => r.collection)).toEqual(['b']);
      expect(await store.search.fullText.candidates('a', 'volcano', 10)).toEqual([]);
      expect(await store.search.fullText.candidates('b', 'volcano', 10)).toHaveLength(1);
      await store.collections.remove('a');
    });

    it('tells which chunks belong in an index: approved and edited ones, with the edited text', async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'j1', [
        chunk('c1', 'first'),
        chunk('c2', 'second', { status: 'rejected' }),
        chunk('c3', 'third', { status: 'edited', edited_text: 'third, edited' }),
        chunk('c4', 'fourth', { status: 'pending' }),
        chunk('c5', 'fifth'),
      ]);
      await chunkedJob(seedsOf, store, 'j2', [chunk('c1', 'other', { status: 'rejected' }), chunk('c2', 'other two')]);
      expect(await store.collections.indexableChunks('j1')).toEqual([
        { chunk_id: 'c1', text: 'first' },
        { chunk_id: 'c3', text: 'third, edited' },
        { chunk_id: 'c5', text: 'fifth' },
      ]);
      expect(await store.collections.indexableChunks('nope')).toEqual([]);
      // Written job/chunk, as the answer is compared below.
      const refs = ['j1/c1', 'j1/c2', 'j1/c3', 'j2/c1', 'j2/c2', 'j3/c1'].map((ref) => {
        const [job_id, chunk_id] = ref.split('/') as [string, string];
        return { job_id, chunk_id };
      });
      const still = await store.collections.stillIndexable(refs);
      expect(still.map((r) => `${r.job_id}/${r.chunk_id}`).sort()).toEqual(['j1/c1', 'j1/c3', 'j2/c2']);
      expect(await store.collections.stillIndexable([])).toEqual([]);
    });
  });
}

/** Four 4-d vectors at known angles from the query [1, 0, 0, 0]. */
const VECTORS: Record<string, number[]> = { c1: [1, 0, 0, 0], c2: [1, 1, 0, 0], c3: [1, 1, 1, 0], c4: [0, 0, 0, 1] };
const QUERY = Float32Array.from([1, 0, 0, 0]);

/** Job j1 (c1…c4) and job j2 (c1) in collection `a`, rows committed and vectors written, keys 1…5. */
async function indexedCollection(store: Store, seedsOf: SeedsOf) {
  await chunkedJob(seedsOf, store, 'j1', [
    chunk('c1', 'Magma rises and erupts as lava', {
      chunk_type: 'section',
      page_numbers: [1],
      section_path: ['Volcanoes'],
    }),
    chunk('c2', 'Lava cools into basalt rock', {
      chunk_type: 'table',
      page_numbers: [2, 3],
      section_path: ['Volcanoes', 'Rocks'],
    }),
    chunk('c3', 'Bread dough rises in a warm oven', {
      chunk_type: 'list',
      page_numbers: [4],
      section_path: ['Baking 100%_done'],
    }),
    chunk('c4', 'Income tax deadlines', { chunk_type: 'section', page_numbers: [5], section_path: ['Taxes'] }),
  ]);
  await chunkedJob(seedsOf, store, 'j2', [chunk('c1', 'Volcanic ash and lava in the second job')]);
  const spec = await store.collections.ensure(collection('a'));
  const first = await store.collections.reserveKeys('a', 5);
  const entries = [
    ['j1', 'c1'],
    ['j1', 'c2'],
    ['j1', 'c3'],
    ['j1', 'c4'],
    ['j2', 'c1'],
  ] as const;
  const vectors = new Float32Array(entries.length * 4);
  entries.forEach(([job, c], i) => vectors.set(job === 'j2' ? [1, 0.2, 0, 0] : VECTORS[c]!, i * 4));
  await store.search.vectors.write(spec, { add: { keys: entries.map((_, i) => first + i), vectors } });
  const texts = new Map<string, string>([
    ['j1/c1', 'Magma rises and erupts as lava'],
    ['j1/c2', 'Lava cools into basalt rock'],
    ['j1/c3', 'Bread dough rises in a warm oven'],
    ['j1/c4', 'Income tax deadlines'],
    ['j2/c1', 'Volcanic ash and lava in the second job'],
  ]);
  await store.collections.replaceVectors(
    [],
    entries.map(([job, c], i) => row('a', first + i, job, c, texts.get(`${job}/${c}`)!)),
  );
  const ids = new Map<string, number>();
  for (const job of ['j1', 'j2'])
    for (const r of await store.collections.vectorsOfJob(job)) ids.set(`${job}/${r.chunk_id}`, r.id);
  const name = (id: number) => [...ids].find(([, v]) => v === id)![0];
  return { spec, ids, name };
}

export function searchContract(open: StoreFactory, seedsOf: SeedsOf): void {
  describe('search: vectors', () => {
    it('finds the nearest vectors by cosine, within a job or filters, and only those a row maps', async () => {
      const store = await open();
      const { spec, ids, name } = await indexedCollection(store, seedsOf);
      const { vectors } = store.search;
      const all = await vectors.nearest(spec, QUERY, 10);
      expect(all.map((c) => name(c.id))).toEqual(['j1/c1', 'j2/c1', 'j1/c2', 'j1/c3', 'j1/c4']);
      expect(all[0]!.score).toBeCloseTo(1, 5);
      expect(all[2]!.score).toBeCloseTo(cosine([1, 0, 0, 0], VECTORS.c2!), 5);
      expect(all[4]!.score).toBeCloseTo(0, 5);
      expect((await vectors.nearest(spec, QUERY, 2)).map((c) => name(c.id))).toEqual(['j1/c1', 'j2/c1']);
      expect((await vectors.nearest(spec, QUERY, 10, { job_id: 'j2' })).map((c) => name(c.id))).toEqual(['j2/c1']);
      const only = async (filters: object) =>
        (await vectors.nearest(spec, QUERY, 10, { job_id: 'j1', filters })).map((c) => name(c.id));
      expect(await only({ chunk_type: 'table' })).toEqual(['j1/c2']);
      expect(await only({ chunk_type: ['list', 'section'] })).toEqual(['j1/c1', 'j1/c3', 'j1/c4']);
      expect(await only({ pages: [3, 5] })).toEqual(['j1/c2', 'j1/c4']);
      expect(await only({ page_from: 3, page_to: 4 })).toEqual(['j1/c2', 'j1/c3']);
      expect(await only({ section: 'rocks' })).toEqual(['j1/c2']);
      // LIKE's own wildcards in the filter are plain text.
      expect(await only({ section: '100%_' })).toEqual(['j1/c3']);
      expect(await only({ section: '%' })).toEqual(['j1/c3']);
      // A vector written under a key no row maps (an embed cut short) is never a result.
      await vectors.write(spec, { add: { keys: [99], vectors: Float32Array.from([1, 0, 0, 0]) } });
      expect(await vectors.present(spec, [99])).toEqual(new Set([99]));
      expect((await vectors.nearest(spec, QUERY, 10)).map((c) => c.id)).toEqual(all.map((c) => c.id));
      expect([...ids.values()].sort()).toEqual(all.map((c) => c.id).sort());
    });

    it('tells which keys hold a vector and their similarity to a query; removes and drops', async () => {
      const store = await open();
      const { spec } = await indexedCollection(store, seedsOf);
      const { vectors } = store.search;
      expect(await vectors.present(spec, [1, 2, 5, 6, 42])).toEqual(new Set([1, 2, 5]));
      const sims = await vectors.similarities(spec, QUERY, [2, 3, 4, 42]);
      expect(sims.get(2)).toBeCloseTo(cosine([1, 0, 0, 0], VECTORS.c2!), 5);
      expect(sims.get(3)).toBeCloseTo(cosine([1, 0, 0, 0], VECTORS.c3!), 5);
      expect(sims.get(4)).toBeCloseTo(0, 5);
      expect(sims.has(42)).toBe(false);
      // A write replaces the vector under a key it adds.
      await vectors.write(spec, { remove: [1], add: { keys: [2], vectors: Float32Array.from([1, 0, 0, 0]) } });
      expect(await vectors.present(spec, [1, 2])).toEqual(new Set([2]));
      expect((await vectors.similarities(spec, QUERY, [2])).get(2)).toBeCloseTo(1, 5);
      await vectors.drop('a');
      expect(await vectors.present(spec, [2, 3])).toEqual(new Set());
      expect(await vectors.nearest(spec, QUERY, 10)).toEqual([]);
    });

    it('reads back the vectors stored under keys, as written (f32) or to half precision (f16), after removes and replaces', async () => {
      const store = await open();
      const { vectors } = store.search;
      const f32 = { name: 'r32', dimensions: 3, quantization: 'f32' as const };
      const f16 = { name: 'r16', dimensions: 3, quantization: 'f16' as const };
      expect(await vectors.read(f32, [1])).toEqual(new Map());
      const written = Float32Array.from([0.1, -0.25, 0.7, 1, 2, 3, -0.5, 0.5, 0.125]);
      for (const spec of [f32, f16]) {
        await vectors.write(spec, { add: { keys: [1, 2, 3], vectors: written } });
        await vectors.write(spec, { remove: [2], add: { keys: [3], vectors: Float32Array.from([0.3, 0.2, 0.1]) } });
        const got = await vectors.read(spec, [1, 2, 3, 42]);
        expect([...got.keys()].sort()).toEqual([1, 3]);
        const digits = spec.quantization === 'f32' ? 6 : 2;
        [0.1, -0.25, 0.7].forEach((x, i) => expect(got.get(1)![i]).toBeCloseTo(x, digits));
        [0.3, 0.2, 0.1].forEach((x, i) => expect(got.get(3)![i]).toBeCloseTo(x, digits));
      }
      await vectors.drop('r32');
      expect(await vectors.read(f32, [1, 3])).toEqual(new Map());
    });
  });

  describe('search: full text', () => {
    it("ranks rows holding more of the query's words first, over one collection, within a job or filters", async () => {
      const store = await open();
      const { name } = await indexedCollection(store, seedsOf);
      const { fullText } = store.search;
      const lava = await fullText.candidates('a', 'lava magma', 10);
      expect(lava.map((c) => name(c.id))[0]).toBe('j1/c1');
      expect(lava.map((c) => name(c.id)).sort()).toEqual(['j1/c1', 'j1/c2', 'j2/c1']);
      expect(lava[0]!.score).toBeGreaterThan(lava[1]!.score);
      expect(lava.every((c) => c.score > 0)).toBe(true);
      expect((await fullText.candidates('a', 'lava magma', 1)).map((c) => name(c.id))).toEqual(['j1/c1']);
      expect((await fullText.candidates('a', 'lava', 10, { job_id: 'j2' })).map((c) => name(c.id))).toEqual(['j2/c1']);
      expect(
        (await fullText.candidates('a', 'lava rises', 10, { job_id: 'j1', filters: { chunk_type: 'table' } })).map(
          (c) => name(c.id),
        ),
      ).toEqual(['j1/c2']);
      expect(
        (await fullText.candidates('a', 'rises', 10, { filters: { page_from: 4 } })).map((c) => name(c.id)),
      ).toEqual(['j1/c3']);
      expect(
        (await fullText.candidates('a', 'lava', 10, { filters: { section: 'volcano' } })).map((c) => name(c.id)).sort(),
      ).toEqual(['j1/c1', 'j1/c2']);
      // Words stem: "erupting" finds "erupts".
      expect((await fullText.candidates('a', 'erupting', 10)).map((c) => name(c.id))).toEqual(['j1/c1']);
      expect(await fullText.candidates('b', 'lava', 10)).toEqual([]);
    });

    it('reads user text as words, never as query syntax, and follows the rows', async () => {
      const store = await open();
      const { ids, name } = await indexedCollection(store, seedsOf);
      const { fullText } = store.search;
      for (const q of ['NEAR(lava basalt)', 'lava* OR "', 'title: (lava)', 'AND lava OR NOT', '-lava']) {
        expect(
          (await fullText.candidates('a', q, 10)).map((c) => name(c.id)),
          q,
        ).toContain('j1/c2');
      }
      expect(await fullText.candidates('a', '  ?! ', 10)).toEqual([]);
      // A row replaced by one with other text: the old words go with it, the new ones come.
      await store.collections.replaceVectors([ids.get('j1/c4')!], [row('a', 6, 'j1', 'c4', 'Tax returns about lava')]);
      expect(await fullText.candidates('a', 'deadlines', 10)).toEqual([]);
      const found = await fullText.candidates('a', 'returns', 10);
      expect(found).toHaveLength(1);
      expect((await store.collections.hits(found.map((c) => c.id)))[0]).toMatchObject({
        chunk_id: 'c4',
        key: 6,
        text: 'Tax returns about lava',
      });
    });

    it("finds a row by its words' other forms in the row's language, and English rows by their own stems only", async () => {
      const store = await open();
      await chunkedJob(seedsOf, store, 'j1', [
        chunk('de', 'Die alten Häusern am Fluss'),
        chunk('fr', 'Les chevaux du village'),
        chunk('en', 'Houses by the river'),
      ]);
      await store.collections.ensure(collection('a'));
      await store.collections.replaceVectors(
        [],
        [
          { ...row('a', 1, 'j1', 'de', 'Die alten Häusern am Fluss'), language: 'deu' },
          { ...row('a', 2, 'j1', 'fr', 'Les chevaux du village'), language: 'fra' },
          { ...row('a', 3, 'j1', 'en', 'Houses by the river'), language: 'eng' },
        ],
      );
      const ids = new Map((await store.collections.vectorsOfJob('j1')).map((r) => [r.id, r.chunk_id]));
      const found = async (q: string) =>
        (await store.search.fullText.candidates('a', q, 10)).map((c) => ids.get(c.id)).sort();
      // Neither word is in the text: Snowball's German and French stems join them to it.
      expect(await found('Haus')).toEqual(['de']);
      expect(await found('Hauses')).toEqual(['de']);
      expect(await found('cheval')).toEqual(['fr']);
      expect(await found('Flusses')).toEqual(['de']);
      expect(await found('house')).toEqual(['en']);
      expect(await found('rivers')).toEqual(['en']);
    });
  });
}

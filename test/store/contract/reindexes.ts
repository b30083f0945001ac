import { describe, expect, it } from 'vitest';
import type { StoreFactory } from './harness.js';
import type { SeedsOf } from './seeds.js';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const collection = (name: string) => ({
  name,
  provider: 'local',
  base_url: null,
  model: 'old',
  dimensions: 4,
  quantization: 'f32' as const,
  created_at: at(0),
});
const reindex = (reindex_id: string, c: string, from_index: string | null = null) => ({
  reindex_id,
  collection: c,
  provider: 'local',
  base_url: null,
  model: 'new',
  dimensions: 8,
  from_index,
  vector_index: `${c}~${reindex_id}`,
  created_at: at(1),
});

export function reindexesContract(open: StoreFactory, seedsOf: SeedsOf): void {
  describe('collection reindexes', () => {
    it('runs one reindex a collection at a time, with its progress, and lists the running ones', async () => {
      const store = await open();
      await store.collections.ensure(collection('a'));
      const r = await store.collections.beginReindex(reindex('r1', 'a'));
      expect(r).toMatchObject({ reindex_id: 'r1', state: 'running', from_index: null, vector_index: 'a~r1' });
      expect(await store.collections.beginReindex(reindex('r2', 'a'))).toBeNull();
      await store.collections.reindexProgress('r1', 3, 10, at(2));
      expect(await store.collections.lastReindex('a')).toMatchObject({ chunks_done: 3, chunks_total: 10 });
      expect((await store.collections.runningReindexes()).map((x) => x.reindex_id)).toEqual(['r1']);
      expect(await store.collections.lastReindex('b')).toBeNull();
    });

    it('a cancel ends it once and leaves its index to drop; the collection is untouched', async () => {
      const store = await open();
      const before = await store.collections.ensure(collection('a'));
      await store.collections.beginReindex(reindex('r1', 'a'));
      expect(await store.collections.endReindex('r1', 'cancelled', null, at(3))).toBe(true);
      expect(await store.collections.endReindex('r1', 'failed', { code: 'X', message: 'x' }, at(3))).toBe(false);
      expect(await store.collections.reindex('r1')).toMatchObject({ state: 'cancelled', drop_index: 'a~r1' });
      expect(await store.collections.indexesToDrop()).toEqual([{ reindex_id: 'r1', drop_index: 'a~r1' }]);
      await store.collections.droppedIndex('r1', at(4));
      expect(await store.collections.indexesToDrop()).toEqual([]);
      expect(await store.collections.find('a')).toEqual(before);
      expect(await store.collections.beginReindex(reindex('r2', 'a'))).not.toBeNull();
    });

    it('the switch moves the collection to the model and index at once, only from the index it began from', async () => {
      const store = await open();
      await store.collections.ensure(collection('a'));
      await store.collections.beginReindex(reindex('r1', 'a'));
      expect(await store.transaction((tx) => tx.collections.switchToReindex('r1', at(5)))).toBe(true);
      expect(await store.collections.find('a')).toMatchObject({
        model: 'new',
        dimensions: 8,
        vector_index: 'a~r1',
        index_version: 1,
      });
      expect(await store.collections.reindex('r1')).toMatchObject({ state: 'done', drop_index: 'a' });
      expect(await store.collections.switchToReindex('r1', at(6))).toBe(false);
      // Begun from the collection's own index, which it no longer has: nothing changes.
      await store.collections.beginReindex(reindex('r2', 'a'));
      expect(await store.collections.switchToReindex('r2', at(7))).toBe(false);
      expect(await store.collections.find('a')).toMatchObject({ vector_index: 'a~r1', index_version: 1 });
      expect(await store.collections.reindex('r2')).toMatchObject({ state: 'running' });
    });

    it('reads the vector rows by key and counts the jobs embedding into the collection', async () => {
      const store = await open();
      await store.collections.ensure(collection('a'));
      const seeds = seedsOf(store);
      await seeds.job({ job_id: 'j', bot_id: null, status: 'finalized', created_at: at(0) });
      for (const [i, id] of ['c1', 'c2', 'c3'].entries())
        await seeds.chunk({
          job_id: 'j',
          chunk_id: id,
          text: id,
          section_path: [],
          order_index: i,
          status: 'approved',
        });
      await store.collections.replaceVectors(
        [],
        [5, 2, 9].map((key, i) => ({
          collection: 'a',
          key,
          job_id: 'j',
          chunk_id: `c${i + 1}`,
          text: `t${key}`,
          text_hash: 'h',
          language: null,
          created_at: at(1),
        })),
      );
      expect(await store.collections.keyedTexts('a', 0, 2)).toEqual([
        { key: 2, text: 't2' },
        { key: 5, text: 't5' },
      ]);
      expect(await store.collections.keyedTexts('a', 5, 10)).toEqual([{ key: 9, text: 't9' }]);
      expect(await store.collections.countKeys('a')).toBe(3);
      expect(await store.collections.embeddingInto('a')).toBe(0);
      expect(await store.collections.beginEmbed('j', 'a', 3, ['finalized'], at(2))).toBe(true);
      expect(await store.collections.embeddingInto('a')).toBe(1);
    });
  });
}

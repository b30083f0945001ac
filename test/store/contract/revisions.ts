import { describe, expect, it } from 'vitest';
import type { NewRevision } from '../../../server/store/repos/revisions-repo.js';
import type { StoreFactory } from './harness.js';
import { at, extraction, readyJob } from './job-fixtures.js';

const change = (over: Partial<NewRevision>): NewRevision => ({
  job_id: 'j',
  entity_type: 'block',
  entity_id: 'b0',
  previous_revision_id: null,
  action: 'approved',
  before: { status: 'pending', version: 1 },
  after: { status: 'approved', version: 2 },
  reviewer_id: 'ann',
  timestamp: at(10),
  ...over,
});

export function revisionsContract(open: StoreFactory): void {
  describe('revisions', () => {
    it('writes revisions in order and lists them newest first, with paging', async () => {
      const store = await open();
      await readyJob(store, 'j');
      const first = await store.revisions.insert(change({ original_text: 'Block 0 text', reviewer_note: 'fine' }));
      const second = await store.revisions.insert(
        change({
          entity_id: 'b1',
          action: 'edited',
          edited_text: 'New words',
          edited_type: 'heading',
          previous_revision_id: null,
          undoes_revision_id: first,
        }),
      );
      const third = await store.revisions.insert(
        change({ entity_type: 'job', entity_id: 'j', action: 'finalize', before: null, after: null }),
      );
      const all = await store.revisions.list('j', { skip: 0, limit: 10 });
      expect(all.total).toBe(3);
      expect(all.items.map((r) => r.revision_id)).toEqual([third, second, first]);
      expect(all.items[2]).toEqual({
        revision_id: first,
        entity_type: 'block',
        entity_id: 'b0',
        previous_revision_id: null,
        action: 'approved',
        before: { status: 'pending', version: 1 },
        after: { status: 'approved', version: 2 },
        original_text: 'Block 0 text',
        edited_text: null,
        edited_type: null,
        reviewer_id: 'ann',
        reviewer_note: 'fine',
        timestamp: at(10),
        undoes_revision_id: null,
      });
      expect(all.items[1]).toMatchObject({
        edited_text: 'New words',
        edited_type: 'heading',
        undoes_revision_id: first,
      });
      expect((await store.revisions.list('j', { skip: 1, limit: 1 })).items.map((r) => r.revision_id)).toEqual([
        second,
      ]);
      expect((await store.revisions.all('j')).map((r) => r.revision_id)).toEqual([first, second, third]);
      expect(await store.revisions.all('other')).toEqual([]);
    });

    it('filters by item, action, reviewer, page and words', async () => {
      const store = await open();
      await readyJob(store, 'j');
      await store.revisions.insert(change({ entity_id: 'b0', original_text: '50% of it' }));
      await store.revisions.insert(change({ entity_id: 'b2', reviewer_id: 'bob', edited_text: 'Rewritten Words' }));
      await store.revisions.insert(
        change({ entity_type: 'chunk', entity_id: 'c1', action: 'rejected', reviewer_note: 'noise' }),
      );
      const ids = async (f: object) =>
        (await store.revisions.list('j', { skip: 0, limit: 10, ...f })).items.map((r) => r.entity_id);
      expect(await ids({ entity_type: 'chunk' })).toEqual(['c1']);
      expect(await ids({ entity_id: 'b2' })).toEqual(['b2']);
      expect(await ids({ action: 'rejected' })).toEqual(['c1']);
      expect(await ids({ reviewer: 'bob' })).toEqual(['b2']);
      // Page 2 holds b2 and b3, and chunk c1 spans it.
      expect(await ids({ page: 2 })).toEqual(['c1', 'b2']);
      expect(await ids({ page: 1 })).toEqual(['b0']);
      expect(await ids({ q: 'rewritten words' })).toEqual(['b2']);
      expect(await ids({ q: 'NOISE' })).toEqual(['c1']);
      // LIKE's wildcards are taken literally.
      expect(await ids({ q: '50%' })).toEqual(['b0']);
      expect(await ids({ q: '_' })).toEqual([]);
      expect(await ids({ q: 'c1' })).toEqual(['c1']);
    });

    it("gets revisions by id, finds an operation's group, and rewrites contents", async () => {
      const store = await open();
      await readyJob(store, 'j');
      const structure = { op: 'split', group: 'g1' };
      const a = await store.revisions.insert(
        change({ action: 'split', before: { status: 'pending', structure }, after: { status: 'pending', structure } }),
      );
      const b = await store.revisions.insert(
        change({ entity_id: 'b0.x', action: 'split', before: null, after: { structure } }),
      );
      await store.revisions.insert(change({ action: 'undo', before: { structure }, after: { structure } }));
      await store.revisions.insert(change({ action: 'split', after: { structure: { op: 'split', group: 'g2' } } }));
      expect((await store.revisions.getMany('j', [b, 'nope', a])).map((r) => r.revision_id).sort()).toEqual(
        [a, b].sort(),
      );
      expect(await store.revisions.getMany('j', [])).toEqual([]);
      expect(await store.revisions.getMany('other', [a])).toEqual([]);
      expect((await store.revisions.structureGroup('j', 'g1')).map((r) => r.revision_id)).toEqual([a, b]);
      await store.revisions.update(a, { before: null, original_text: null, reviewer_note: '[redacted]' });
      const [rewritten] = await store.revisions.getMany('j', [a]);
      expect(rewritten).toMatchObject({
        before: null,
        after: { status: 'pending', structure },
        original_text: null,
        reviewer_note: '[redacted]',
      });
    });
  });

  describe('pages', () => {
    it("lists a job's pages in order, tells whether one exists, and which were OCRed", async () => {
      const store = await open();
      await readyJob(store, 'j');
      const listed = await store.pages.list('j', { skip: 0, limit: 10 });
      expect(listed).toMatchObject({ total: 2, skip: 0, limit: 10 });
      // As readyJob saved them: page 1 born digital, page 2 turned and OCRed.
      expect(listed.items).toEqual(extraction().pages);
      expect((await store.pages.list('j', { skip: 1, limit: 1 })).items.map((p) => p.page)).toEqual([2]);
      expect(await store.pages.has('j', 2)).toBe(true);
      expect(await store.pages.has('j', 3)).toBe(false);
      expect(await store.pages.ocrPages('j')).toEqual({
        needing: [2],
        read: [{ page: 2, language: 'eng', confidence: 88.5, rotation: 0 }],
      });
      expect(await store.pages.ocrPages('none')).toEqual({ needing: [], read: [] });
    });
  });
}

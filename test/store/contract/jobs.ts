import { describe, expect, it } from 'vitest';
import type { StoreFactory } from './harness.js';
import { at, extraction, newBlock, newChunk, newJob, readyJob } from './job-fixtures.js';

export function jobsContract(open: StoreFactory): void {
  describe('jobs', () => {
    it('inserts a job with its defaults and reads it back; an unknown job is null', async () => {
      const store = await open();
      const job = await store.jobs.insert(newJob('j1', 1, { bot_id: null, source: { kind: 'upload', review: true } }));
      expect(job).toMatchObject({
        job_id: 'j1',
        status: 'queued',
        source_file: 'j1.pdf',
        format: 'pdf',
        size_bytes: 1234,
        title: null,
        total_pages: 0,
        pages_done: 0,
        total_blocks: 0,
        total_chunks: 0,
        options: { chunk_size: 256, chunk_overlap: 32 },
        warnings: [],
        error_code: null,
        error_message: null,
        finalize_policy: null,
        created_at: at(1),
        updated_at: at(1),
        started_at: null,
        finished_at: null,
        finalized_at: null,
        bot_id: null,
        source: { kind: 'upload', review: true },
        page_size: null,
        attempts: 0,
        detected_language: null,
      });
      expect(await store.jobs.get('j1')).toEqual(job);
      expect(await store.jobs.get('nope')).toBeNull();
    });

    it('lists newest first, pages, and filters by state and by a scope of jobs and bots', async () => {
      const store = await open();
      await store.jobs.insert(newJob('a', 1));
      await store.jobs.insert(newJob('b', 2, { bot_id: 'bot-1' }));
      await store.jobs.insert(newJob('c', 3, { status: 'failed' }));
      const all = await store.jobs.list({ statuses: [], scope: null, skip: 0, limit: 10 });
      expect(all.items.map((j) => j.job_id)).toEqual(['c', 'b', 'a']);
      expect(all.total).toBe(3);
      const second = await store.jobs.list({ statuses: [], scope: null, skip: 1, limit: 1 });
      expect(second).toMatchObject({ total: 3, skip: 1, limit: 1 });
      expect(second.items.map((j) => j.job_id)).toEqual(['b']);
      expect(
        (await store.jobs.list({ statuses: ['queued'], scope: null, skip: 0, limit: 10 })).items.map((j) => j.job_id),
      ).toEqual(['b', 'a']);
      const scoped = await store.jobs.list({
        statuses: [],
        scope: { jobs: ['c'], bots: ['bot-1'] },
        skip: 0,
        limit: 10,
      });
      expect(scoped.items.map((j) => j.job_id)).toEqual(['c', 'b']);
      expect((await store.jobs.list({ statuses: [], scope: { jobs: [], bots: [] }, skip: 0, limit: 10 })).total).toBe(
        0,
      );
    });

    it('updates fields, and only from the states named when some are', async () => {
      const store = await open();
      await store.jobs.insert(newJob('j', 0));
      expect(await store.jobs.update('j', { status: 'cancelled', finished_at: at(2), updated_at: at(2) })).toBe(true);
      expect(await store.jobs.get('j')).toMatchObject({ status: 'cancelled', finished_at: at(2), updated_at: at(2) });
      expect(await store.jobs.update('j', { status: 'ready_for_review' }, ['finalizing'])).toBe(false);
      expect((await store.jobs.get('j'))?.status).toBe('cancelled');
      expect(await store.jobs.update('j', { error_code: 'X', error_message: 'why' }, ['cancelled', 'failed'])).toBe(
        true,
      );
      expect(await store.jobs.get('j')).toMatchObject({ error_code: 'X', error_message: 'why', status: 'cancelled' });
      expect(await store.jobs.update('nope', { status: 'failed' })).toBe(false);
    });

    it('claims a queued job once, counting the attempt, and takes an attempt back', async () => {
      const store = await open();
      await store.jobs.insert(newJob('j', 0));
      const claimed = await store.jobs.claim('j', at(3));
      expect(claimed).toMatchObject({
        status: 'processing',
        started_at: at(3),
        updated_at: at(3),
        pages_done: 0,
        attempts: 1,
      });
      expect(await store.jobs.claim('j', at(4))).toBeNull();
      await store.jobs.uncountAttempt('j');
      await store.jobs.uncountAttempt('j');
      expect((await store.jobs.get('j'))?.attempts).toBe(0);
    });

    it('queues unfinished jobs again, oldest first', async () => {
      const store = await open();
      await store.jobs.insert(newJob('old', 1));
      await store.jobs.insert(newJob('new', 2));
      await store.jobs.insert(newJob('done', 0, { status: 'ready_for_review' }));
      await store.jobs.claim('old', at(3));
      expect(await store.jobs.requeueUnfinished()).toEqual(['old', 'new']);
      expect((await store.jobs.get('old'))?.status).toBe('queued');
      expect((await store.jobs.get('done'))?.status).toBe('ready_for_review');
    });

    it('saves an extraction only while the job is processing, replacing what it held', async () => {
      const store = await open();
      await store.jobs.insert(newJob('j', 0));
      expect(await store.jobs.saveExtraction('j', extraction())).toBe(false);
      expect(await store.blocks.find('j')).toEqual([]);
      await store.jobs.claim('j', at(1));
      expect(await store.jobs.saveExtraction('j', extraction({ blocks: [newBlock(7)] }))).toBe(true);
      await store.jobs.update('j', { status: 'processing' });
      expect(await store.jobs.saveExtraction('j', extraction())).toBe(true);
      expect(await store.jobs.get('j')).toMatchObject({
        status: 'ready_for_review',
        total_blocks: 4,
        total_chunks: 2,
        title: 'A title',
        finished_at: at(9),
      });
      expect((await store.blocks.find('j')).map((b) => b.block_id)).toEqual(['b0', 'b1', 'b2', 'b3']);
      expect(await store.blocks.get('j', 'b0')).toEqual({
        ...newBlock(0),
        job_id: 'j',
        status: 'pending',
        edited_text: null,
        edited_type: null,
        reviewer_note: null,
        version: 1,
        current_revision_id: null,
        updated_at: expect.any(String),
      });
      expect(
        (await store.chunks.find('j')).map((c) => [c.chunk_id, c.block_ids, c.status, c.version, c.stale]),
      ).toEqual([
        ['c0', ['b0', 'b1'], 'pending', 1, false],
        ['c1', ['b2', 'b3'], 'pending', 1, false],
      ]);
      expect((await store.pages.list('j', { skip: 0, limit: 10 })).total).toBe(2);
    });

    it("saves a long document's rows as given, whatever their text holds", async () => {
      const store = await open();
      // Enough rows that every table takes the store's bulk path, and text that a bulk format must escape.
      const awkward = (n: number) => `tab\there\nnew line\r\nback\\slash \\N "quoted" 'single' ${n} 漢字 Ünïcode 🙂`;
      const pageCount = 700;
      const pages = Array.from({ length: pageCount }, (_, i) => ({
        page: i + 1,
        width: 612.5,
        height: 792,
        rotation: i % 4 === 0 ? 90 : 0,
        needs_ocr: i % 3 === 0,
        ocr: i % 3 === 0 ? { language: 'deu', confidence: 71.25, rotation: 0 } : null,
      }));
      const blocks = Array.from({ length: 1400 }, (_, n) =>
        newBlock(n, {
          page: 1 + Math.floor(n / 2),
          text: awkward(n),
          heading_level: n % 7 === 0 ? 2 : null,
          hierarchy_path: [`Part\t${n % 5}`, 'Sec "2"'],
          table_grid:
            n % 11 === 0
              ? {
                  rows: [
                    ['a\tb', 'c\nd'],
                    ['\\', ''],
                  ],
                  header_rows: 1,
                }
              : null,
          language: n % 2 ? 'deu' : null,
          confidence: n % 3 ? 0.875 : null,
          flagged: n % 13 === 0,
        }),
      );
      const chunks = Array.from({ length: 600 }, (_, n) =>
        newChunk(n, [`b${2 * n}`, `b${2 * n + 1}`], [n + 1], { text: awkward(n).repeat(20), section_path: ['A\tB'] }),
      );
      await store.jobs.insert(newJob('long', 0));
      await store.jobs.claim('long', at(1));
      const job = { ...extraction().job, total_pages: pageCount, total_blocks: 1400, total_chunks: 600 };
      expect(await store.jobs.saveExtraction('long', { pages, blocks, chunks, job })).toBe(true);
      const savedBlocks = await store.blocks.find('long');
      expect(
        savedBlocks.map(
          ({
            job_id,
            status,
            edited_text,
            edited_type,
            reviewer_note,
            version,
            current_revision_id,
            updated_at,
            ...b
          }) => b,
        ),
      ).toEqual(blocks);
      const savedChunks = await store.chunks.find('long');
      expect(
        savedChunks.map((c) => [c.chunk_id, c.text, c.section_path, c.page_numbers, c.block_ids, c.token_count]),
      ).toEqual(chunks.map((c) => [c.chunk_id, c.text, c.section_path, c.page_numbers, c.block_ids, c.token_count]));
      const listed = await store.pages.list('long', { skip: 0, limit: 1000 });
      expect(listed.total).toBe(pageCount);
      expect(await store.pages.ocrPages('long')).toEqual({
        needing: pages.filter((p) => p.needs_ocr).map((p) => p.page),
        read: pages.filter((p) => p.ocr).map((p) => ({ page: p.page, ...p.ocr })),
      });
      // Chunks added later in bulk take the same path.
      const more = Array.from({ length: 600 }, (_, n) => newChunk(600 + n, ['b0'], [1], { text: awkward(n) }));
      await store.chunks.insertMany('long', more);
      expect((await store.chunks.find('long')).slice(600).map((c) => c.text)).toEqual(more.map((c) => c.text));
    });

    it('deletes a job with everything it holds', async () => {
      const store = await open();
      await readyJob(store, 'j');
      await store.revisions.insert({
        job_id: 'j',
        entity_type: 'job',
        entity_id: 'j',
        previous_revision_id: null,
        action: 'rechunk',
        before: null,
        after: null,
        reviewer_id: 'r',
        timestamp: at(5),
      });
      await store.jobs.delete('j');
      expect(await store.jobs.get('j')).toBeNull();
      expect(await store.blocks.find('j')).toEqual([]);
      expect(await store.chunks.find('j')).toEqual([]);
      expect(await store.revisions.all('j')).toEqual([]);
      expect((await store.pages.list('j', { skip: 0, limit: 10 })).total).toBe(0);
    });

    it('counts review states of blocks and chunks, per job and for a page of jobs, and recounts totals', async () => {
      const store = await open();
      await readyJob(store, 'j');
      await store.jobs.insert(newJob('empty', 1));
      await store.blocks.update('j', 'b0', { status: 'approved' });
      await store.blocks.update('j', 'b1', { status: 'rejected' });
      await store.chunks.update('j', 'c1', { status: 'edited', stale: true });
      expect(await store.jobs.reviewCounts('j')).toEqual({
        blocks: { pending: 2, approved: 1, edited: 0, rejected: 1 },
        chunks: { pending: 1, approved: 0, edited: 1, rejected: 0, stale: 1 },
      });
      const tallies = await store.jobs.blockTallies(['j', 'empty']);
      expect(tallies.get('j')).toEqual({ pending: 2, approved: 1, edited: 0, rejected: 1 });
      expect(tallies.get('empty')).toEqual({ pending: 0, approved: 0, edited: 0, rejected: 0 });
      expect((await store.jobs.blockTallies([])).size).toBe(0);
      await store.blocks.delete('j', 'b3');
      await store.chunks.deleteMany('j', ['c1']);
      expect(await store.jobs.recount('j', at(20))).toEqual({ total_blocks: 3, total_chunks: 1 });
      expect(await store.jobs.get('j')).toMatchObject({ total_blocks: 3, total_chunks: 1, updated_at: at(20) });
    });

    it("reads a job's status together: its row, OCR pages, review counts and index, as each read alone gives them", async () => {
      const store = await open();
      await readyJob(store, 'j');
      await store.jobs.insert(newJob('queued', 1));
      await store.blocks.update('j', 'b1', { status: 'rejected' });
      await store.chunks.update('j', 'c1', { status: 'edited', stale: true });
      const alone = async (jobId: string) => ({
        job: await store.jobs.get(jobId),
        ocr: await store.pages.ocrPages(jobId),
        review: await store.jobs.reviewCounts(jobId),
        index: await store.collections.jobIndex(jobId),
      });
      // Page 2 OCRed, one block rejected, one chunk edited and stale; not embedded yet.
      expect(await store.jobs.status('j')).toEqual(await alone('j'));
      expect((await store.jobs.status('j'))?.ocr.read).toEqual([
        { page: 2, language: 'eng', confidence: 88.5, rotation: 0 },
      ]);
      expect(await store.jobs.status('queued')).toEqual(await alone('queued'));
      await store.collections.ensure({
        name: 'c',
        provider: 'local',
        base_url: null,
        model: 'm',
        dimensions: 4,
        quantization: 'f32',
        created_at: at(30),
      });
      expect(await store.collections.beginEmbed('j', 'c', 2, ['ready_for_review'], at(31))).toBe(true);
      await store.collections.progress('j', 1, at(32));
      const embedding = await store.jobs.status('j');
      expect(embedding?.index).toEqual({
        job_id: 'j',
        collection: 'c',
        chunks_embedded: 1,
        chunks_total: 2,
        indexed_at: null,
        updated_at: at(32),
      });
      expect(embedding).toEqual(await alone('j'));
      expect(await store.jobs.status('none')).toBeNull();
    });
  });

  describe('blocks', () => {
    it('gets one, many, lists with filters and paging, and finds in reading order', async () => {
      const store = await open();
      await readyJob(store, 'j');
      expect(await store.blocks.get('j', 'nope')).toBeNull();
      expect((await store.blocks.getMany('j', ['b2', 'b0', 'zz'])).map((b) => b.block_id).sort()).toEqual(['b0', 'b2']);
      await store.blocks.update('j', 'b1', { edited_type: 'heading', status: 'edited' });
      await store.blocks.update('j', 'b2', { source: 'ocr', confidence: 40, flagged: true });
      await store.blocks.update('j', 'b3', { source: 'ocr', confidence: 90 });
      const page = await store.blocks.list('j', { skip: 1, limit: 2 });
      expect(page).toMatchObject({ total: 4, skip: 1, limit: 2 });
      expect(page.items.map((b) => b.block_id)).toEqual(['b1', 'b2']);
      const ids = async (f: Parameters<typeof store.blocks.list>[1]) =>
        (await store.blocks.list('j', f)).items.map((b) => b.block_id);
      expect(await ids({ type: 'heading', skip: 0, limit: 10 })).toEqual(['b1']);
      expect(await ids({ status: 'pending', skip: 0, limit: 10 })).toEqual(['b0', 'b2', 'b3']);
      expect(await ids({ page: 2, skip: 0, limit: 10 })).toEqual(['b2', 'b3']);
      expect(await ids({ flagged: true, skip: 0, limit: 10 })).toEqual(['b2']);
      expect(await ids({ source: 'ocr', skip: 0, limit: 10 })).toEqual(['b2', 'b3']);
      expect(await ids({ sort: 'confidence', skip: 0, limit: 10 })).toEqual(['b2', 'b3', 'b0', 'b1']);
      expect((await store.blocks.find('j', { not_status: 'edited' })).map((b) => b.block_id)).toEqual([
        'b0',
        'b2',
        'b3',
      ]);
      expect((await store.blocks.find('j', { page: 1, status: 'pending' })).map((b) => b.block_id)).toEqual(['b0']);
    });

    it('updates at a version only while the block is at it', async () => {
      const store = await open();
      await readyJob(store, 'j');
      const updated = await store.blocks.update(
        'j',
        'b0',
        { status: 'approved', version: 2, current_revision_id: 'r1', updated_at: at(30) },
        1,
      );
      expect(updated).toMatchObject({
        block_id: 'b0',
        status: 'approved',
        version: 2,
        current_revision_id: 'r1',
        updated_at: at(30),
        text: 'Block 0 text',
      });
      expect(await store.blocks.update('j', 'b0', { status: 'rejected', version: 2 }, 1)).toBeNull();
      expect((await store.blocks.get('j', 'b0'))?.status).toBe('approved');
      expect(await store.blocks.update('j', 'nope', { status: 'rejected' })).toBeNull();
    });

    it('inserts, deletes, finds neighbours, shifts, compacts the order and tells changes by fingerprint', async () => {
      const store = await open();
      await readyJob(store, 'j');
      expect((await store.blocks.neighbour('j', 1, 'before'))?.block_id).toBe('b0');
      expect((await store.blocks.neighbour('j', 1, 'after'))?.block_id).toBe('b2');
      expect(await store.blocks.neighbour('j', 0, 'before')).toBeNull();
      expect(await store.blocks.firstOrderIndex('j')).toBe(0);
      expect(await store.blocks.firstOrderIndex('none')).toBe(0);
      await store.blocks.shiftFrom('j', 2, null);
      const { job_id: _j, ...b1 } = (await store.blocks.get('j', 'b1'))!;
      const inserted = await store.blocks.insert('j', {
        ...b1,
        block_id: 'b1.x',
        order_index: 2,
        text: 'Inserted',
        indent_level: 2,
        version: 1,
        current_revision_id: 'rx',
      });
      expect(inserted).toMatchObject({
        job_id: 'j',
        block_id: 'b1.x',
        order_index: 2,
        text: 'Inserted',
        indent_level: 2,
        current_revision_id: 'rx',
        page: 1,
      });
      const placed = async () => (await store.blocks.find('j')).map((b) => [b.block_id, b.order_index]);
      expect(await placed()).toEqual([
        ['b0', 0],
        ['b1', 1],
        ['b1.x', 2],
        ['b2', 3],
        ['b3', 4],
      ]);
      // The block being placed is left where it is.
      await store.blocks.shiftFrom('j', 3, 'b3');
      expect((await store.blocks.get('j', 'b2'))?.order_index).toBe(4);
      expect((await store.blocks.get('j', 'b3'))?.order_index).toBe(4);
      await store.blocks.update('j', 'b3', { order_index: 5 });
      await store.blocks.delete('j', 'b0');
      await store.blocks.compactOrder('j');
      expect(await placed()).toEqual([
        ['b1', 0],
        ['b1.x', 1],
        ['b2', 2],
        ['b3', 3],
      ]);
      expect(await store.blocks.firstOrderIndex('j')).toBe(0);
      const prints = [await store.blocks.fingerprint('j')];
      await store.blocks.update('j', 'b1', { version: 2 });
      prints.push(await store.blocks.fingerprint('j'));
      // A move changes the order alone.
      await store.blocks.update('j', 'b1', { order_index: 2 });
      await store.blocks.update('j', 'b2', { order_index: 0 });
      prints.push(await store.blocks.fingerprint('j'));
      await store.blocks.delete('j', 'b3');
      prints.push(await store.blocks.fingerprint('j'));
      expect(new Set(prints).size).toBe(4);
    });
  });

  describe('chunks', () => {
    it('gets, lists with filters and paging, finds by block, and lists ids', async () => {
      const store = await open();
      await readyJob(store, 'j');
      expect(await store.chunks.get('j', 'c0')).toMatchObject({
        chunk_id: 'c0',
        text: 'Chunk 0 text',
        original_text: 'Chunk 0 text',
        edited_text: null,
        page_numbers: [1],
        review_status: 'pending',
      });
      expect(await store.chunks.get('j', 'nope')).toBeNull();
      await store.chunks.update('j', 'c1', { stale: true, status: 'approved' });
      const ids = async (f: Parameters<typeof store.chunks.list>[1]) =>
        (await store.chunks.list('j', f)).items.map((c) => c.chunk_id);
      expect(await ids({ skip: 0, limit: 10 })).toEqual(['c0', 'c1']);
      expect(await ids({ skip: 1, limit: 10 })).toEqual(['c1']);
      expect(await ids({ page: 2, skip: 0, limit: 10 })).toEqual(['c1']);
      expect(await ids({ stale: true, skip: 0, limit: 10 })).toEqual(['c1']);
      expect(await ids({ status: 'pending', skip: 0, limit: 10 })).toEqual(['c0']);
      expect(await ids({ chunk_type: 'table', skip: 0, limit: 10 })).toEqual([]);
      expect((await store.chunks.find('j', { block_id: 'b3' })).map((c) => c.chunk_id)).toEqual(['c1']);
      expect((await store.chunks.ids('j')).sort()).toEqual(['c0', 'c1']);
    });

    it('inserts many, updates at a version, deletes many and marks stale by block', async () => {
      const store = await open();
      await readyJob(store, 'j');
      await store.chunks.insertMany('j', [newChunk(2, ['b3'], [2]), newChunk(3, ['b0', 'b3'], [1, 2])]);
      expect((await store.chunks.find('j')).map((c) => c.chunk_id)).toEqual(['c0', 'c1', 'c2', 'c3']);
      const edited = await store.chunks.update('j', 'c0', { edited_text: 'Better', status: 'edited', version: 2 }, 1);
      expect(edited).toMatchObject({
        text: 'Better',
        original_text: 'Chunk 0 text',
        edited_text: 'Better',
        status: 'edited',
        version: 2,
      });
      expect(await store.chunks.update('j', 'c0', { status: 'approved' }, 1)).toBeNull();
      expect(await store.chunks.update('j', 'c0', { original_text: 'Rewritten', block_ids: ['b1'] })).toMatchObject({
        original_text: 'Rewritten',
        block_ids: ['b1'],
        text: 'Better',
      });
      expect(await store.chunks.markStale('j', [])).toBe(0);
      expect(await store.chunks.markStale('j', ['b3', 'b9'])).toBe(3);
      expect((await store.chunks.find('j', { stale: true })).map((c) => c.chunk_id)).toEqual(['c1', 'c2', 'c3']);
      await store.chunks.deleteMany('j', ['c1', 'c3']);
      expect(await store.chunks.ids('j')).toHaveLength(2);
    });
  });
}

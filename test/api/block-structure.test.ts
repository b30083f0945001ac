import { describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll } from '../helpers/app.js';
import { exportedMarkdown, finalizedExport } from '../helpers/job-flow.js';
import { useServer } from '../helpers/use-server.js';

// Split, merge and move: what the server keeps, the audit, undo of the whole operation, the chunks and the
// exported document must all agree, and no words may be lost or doubled on the way.

const server = useServer();

/** Paragraphs with words of their own, so each block can be found in the export. */
const doc = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i === 0 ? '# Manual heading\n' : `Paragraph ${i} tells of item-${i}-alpha. Then item-${i}-omega ends it.\n`,
  ).join('\n');

type Block = {
  block_id: string;
  version: number;
  text: string;
  edited_text?: string | null;
  status: string;
  type: string;
  page: number;
  bbox: unknown;
};
/** The block's words as they count: its edit if any. */
const effective = (b: Block) => b.edited_text ?? b.text;

const blocks = async (jobId: string) => (await listAll(server, `/jobs/${jobId}/blocks`)) as Block[];
const ids = async (jobId: string) => (await blocks(jobId)).map((b) => b.block_id);
const texts = async (jobId: string) => (await blocks(jobId)).map((b) => b.text);
const get = async (jobId: string, id: string): Promise<Block> =>
  json(await server.call('GET', `/jobs/${jobId}/blocks/${id}`));
const split = (jobId: string, b: Block, at: number, version = b.version) =>
  server.call('POST', `/jobs/${jobId}/blocks/${b.block_id}/split`, { json: { at, version } });
const merge = (jobId: string, bs: Block[], separator?: string) =>
  server.call('POST', `/jobs/${jobId}/blocks/merge`, {
    json: { items: bs.map((b) => ({ block_id: b.block_id, version: b.version })), ...(separator ? { separator } : {}) },
  });
const move = (jobId: string, b: Block, after: string | null) =>
  server.call('POST', `/jobs/${jobId}/blocks/${b.block_id}/move`, {
    json: { version: b.version, after_block_id: after },
  });
const undo = (jobId: string, items: unknown[]) =>
  server.call('POST', `/jobs/${jobId}/blocks/undo`, { json: { items } });
const staleChunks = async (jobId: string) =>
  (await listAll(server, `/jobs/${jobId}/chunks`)).filter((c) => c.stale).length;

const exportedDocument = async (jobId: string) => exportedMarkdown(await finalizedExport(server, jobId));

describe('split', () => {
  it('cuts a block in two right after itself, keeps the status, marks chunks stale, and undo of either part restores it whole', async () => {
    const job = await ingest(server, 'split.md', enc(doc(5)));
    const before = await blocks(job.job_id);
    const b2 = await get(job.job_id, 'b2');
    const approved = await json(
      await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
        json: { version: b2.version, status: 'approved' },
      }),
    );
    const at = approved.text.indexOf('Then');
    const res = await split(job.job_id, approved, at);
    expect(res.status).toBe(200);
    const out = await json(res);
    expect(out.removed).toEqual([]);
    expect(out.stale_chunks).toBeGreaterThan(0);
    const [head, tail] = out.blocks as Block[];
    expect(head).toMatchObject({
      block_id: 'b2',
      text: 'Paragraph 1 tells of item-1-alpha.',
      status: 'approved',
      version: approved.version + 1,
    });
    expect(tail).toMatchObject({
      text: 'Then item-1-omega ends it.',
      status: 'approved',
      version: 1,
      page: head!.page,
      type: head!.type,
    });
    // In the listing the new block follows its first part; nothing else moved.
    const order = await ids(job.job_id);
    expect(order).toEqual([
      ...before.slice(0, 2).map((b) => b.block_id),
      tail!.block_id,
      ...before.slice(2).map((b) => b.block_id),
    ]);
    expect(await staleChunks(job.job_id)).toBeGreaterThan(0);
    // The audit names the operation on both blocks.
    const audit = await listAll(server, `/jobs/${job.job_id}/audit`);
    expect(
      audit
        .filter((r) => r.action === 'split')
        .map((r) => r.entity_id)
        .sort(),
    ).toEqual(['b2', tail!.block_id].sort());

    // Undo through the existing route, naming only the new block's revision: the whole split goes back.
    const u = await undo(job.job_id, [out.revisions[1]]);
    expect(u.status).toBe(200);
    expect(await ids(job.job_id)).toEqual(before.map((b) => b.block_id));
    expect(await get(job.job_id, 'b2')).toMatchObject({ text: approved.text, status: 'approved' });
    const undos = (await listAll(server, `/jobs/${job.job_id}/audit`)).filter((r) => r.action === 'undo');
    expect(undos.map((r) => r.undoes_revision_id).sort()).toEqual(
      out.revisions.map((r: { revision_id: string }) => r.revision_id).sort(),
    );
    // Undone once is undone: a second undo finds the blocks changed.
    expect((await undo(job.job_id, [out.revisions[0]])).status).toBe(409);
  });

  it('splits an edited block along its edit, and refuses bad offsets, stale versions and unknown blocks', async () => {
    const job = await ingest(server, 'split-edit.md', enc(doc(3)));
    let b = await get(job.job_id, 'b2');
    b = await json(
      await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
        json: { version: b.version, edited_text: 'First corrected half. Second corrected half.' },
      }),
    );
    for (const at of [0, 44, 500]) expect((await split(job.job_id, b, at)).status, `at ${at}`).toBe(400);
    expect((await split(job.job_id, b, 10, b.version - 1)).status).toBe(409);
    expect(
      (await server.call('POST', `/jobs/${job.job_id}/blocks/nope/split`, { json: { at: 3, version: 1 } })).status,
    ).toBe(404);
    expect((await get(job.job_id, 'b2')).version).toBe(b.version);
    const out = await json(await split(job.job_id, b, 'First corrected half.'.length));
    expect(out.blocks.map((x: Block) => x.text)).toEqual(['First corrected half.', 'Second corrected half.']);
    // The edit was folded into the parts: both count as reviewed.
    expect(out.blocks.map((x: Block) => x.status)).toEqual(['approved', 'approved']);
    const u = await json(await undo(job.job_id, out.revisions));
    expect(u.updated).toBe(1);
    const back = await get(job.job_id, 'b2');
    expect([effective(back), back.status]).toEqual(['First corrected half. Second corrected half.', 'edited']);
  });
});

describe('merge', () => {
  it('joins blocks into the first in reading order, and undo brings the others back where they were', async () => {
    const job = await ingest(server, 'merge.md', enc(doc(6)));
    const before = await blocks(job.job_id);
    const [b3, b4] = [await get(job.job_id, 'b3'), await get(job.job_id, 'b4')];
    // Listed out of order: the reading order decides which block survives.
    const out = await json(await merge(job.job_id, [b4, b3]));
    expect(out.removed).toEqual(['b4']);
    expect(out.blocks[0]).toMatchObject({ block_id: 'b3', text: `${b3.text} ${b4.text}`, status: 'pending' });
    expect(await ids(job.job_id)).toEqual(before.map((b) => b.block_id).filter((id) => id !== 'b4'));
    expect((await server.call('GET', `/jobs/${job.job_id}/blocks/b4`)).status).toBe(404);
    // A stale or missing block refuses the whole merge.
    const b5 = await get(job.job_id, 'b5');
    expect((await merge(job.job_id, [{ ...b5, version: b5.version + 3 }, await get(job.job_id, 'b6')])).status).toBe(
      409,
    );
    const missing = await merge(job.job_id, [b5, { ...b5, block_id: 'b4' }]);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.details.missing).toEqual(['b4']);
    expect((await merge(job.job_id, [b5])).status).toBe(400);

    expect((await undo(job.job_id, [out.revisions[0]])).status).toBe(200);
    const after = await blocks(job.job_id);
    expect(after.map((b) => [b.block_id, b.text, b.status])).toEqual(before.map((b) => [b.block_id, b.text, b.status]));
  });

  it('undo of a merge is refused once the merged block changed again', async () => {
    const job = await ingest(server, 'merge-stale.md', enc(doc(4)));
    const out = await json(await merge(job.job_id, [await get(job.job_id, 'b2'), await get(job.job_id, 'b3')], '\n'));
    expect(out.blocks[0].text).toContain('\n');
    const merged = out.blocks[0] as Block;
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
      json: { version: merged.version, status: 'approved' },
    });
    const res = await undo(job.job_id, out.revisions);
    expect(res.status).toBe(409);
    expect((await json(res)).error.details.stale.map((s: { block_id: string }) => s.block_id)).toEqual(['b2']);
    expect((await server.call('GET', `/jobs/${job.job_id}/blocks/b3`)).status).toBe(404);
  });
});

describe('move', () => {
  it('puts a block after another or first, and undo puts it back', async () => {
    const job = await ingest(server, 'move.md', enc(doc(6)));
    const before = await ids(job.job_id);
    const b5 = await get(job.job_id, 'b5');
    const out = await json(await move(job.job_id, b5, 'b1'));
    expect(out.blocks[0]).toMatchObject({ block_id: 'b5', version: b5.version + 1 });
    expect(await ids(job.job_id)).toEqual(['b1', 'b5', 'b2', 'b3', 'b4', 'b6']);
    const first = await json(await move(job.job_id, await get(job.job_id, 'b6'), null));
    expect(await ids(job.job_id)).toEqual(['b6', 'b1', 'b5', 'b2', 'b3', 'b4']);
    // Where it already is: nothing written.
    const same = await json(await move(job.job_id, await get(job.job_id, 'b2'), 'b5'));
    expect(same.revisions).toEqual([]);
    expect((await move(job.job_id, await get(job.job_id, 'b2'), 'b2')).status).toBe(400);
    expect((await move(job.job_id, await get(job.job_id, 'b2'), 'zzz')).status).toBe(404);
    // Undo, newest first: each move goes back next to the block it followed.
    expect((await undo(job.job_id, first.revisions)).status).toBe(200);
    expect(await ids(job.job_id)).toEqual(['b1', 'b5', 'b2', 'b3', 'b4', 'b6']);
    expect((await undo(job.job_id, out.revisions)).status).toBe(200);
    expect(await ids(job.job_id)).toEqual(before);
  });
});

describe('the export and a finalized job', () => {
  it('document.md follows splits, merges and moves; a finalized job refuses them', async () => {
    const job = await ingest(server, 'export.md', enc(doc(7)));
    const b2 = await get(job.job_id, 'b2');
    await split(job.job_id, b2, b2.text.indexOf('Then'));
    await merge(job.job_id, [await get(job.job_id, 'b4'), await get(job.job_id, 'b5')]);
    await move(job.job_id, await get(job.job_id, 'b7'), 'b1');
    // Places are numbered again after each operation: no gaps where blocks were added, removed or moved.
    expect((await blocks(job.job_id)).map((b) => (b as Block & { order_index: number }).order_index)).toEqual([
      ...Array(7).keys(),
    ]);
    const expected = await texts(job.job_id);
    const md = await exportedDocument(job.job_id);
    const positions = expected.map((t) => md.indexOf(t));
    expect(
      positions.every((p) => p >= 0),
      `every block in document.md:\n${md}`,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Merged words appear once; the chunks were rebuilt from the new blocks.
    expect(md.split('item-4-alpha').length).toBe(2);
    expect(md.indexOf('item-6-alpha')).toBeLessThan(md.indexOf('item-1-alpha'));
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.some((c) => c.stale)).toBe(false);
    expect(chunks.flatMap((c) => c.block_ids)).not.toContain('b5');

    const b3 = await get(job.job_id, 'b3');
    for (const res of [
      await split(job.job_id, b3, 5),
      await merge(job.job_id, [b3, await get(job.job_id, 'b6')]),
      await move(job.job_id, b3, null),
    ]) {
      expect(res.status).toBe(409);
      expect((await json(res)).error.code).toBe('INVALID_STATE');
    }
  });

  it('documents the routes in the OpenAPI', async () => {
    const spec = await json(await server.call('GET', '/openapi.json'));
    for (const path of [
      '/jobs/{job_id}/blocks/{block_id}/split',
      '/jobs/{job_id}/blocks/merge',
      '/jobs/{job_id}/blocks/{block_id}/move',
    ]) {
      expect(Object.keys(spec.paths[path].post.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '404', '409']),
      );
    }
  });
});

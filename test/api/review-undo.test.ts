import { describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll, listPage } from '../helpers/app.js';
import { exportedMarkdown, finalizedExport } from '../helpers/job-flow.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { useServer } from '../helpers/use-server.js';

// What a reviewer's corrections and undos leave behind: the block the server keeps, the audit trail and
// the exported document must agree, and nothing the machine read may go blank on the way.

const server = useServer();

/** Paragraphs with words of their own, so each block's text can be found in the export. */
const doc = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i % 4 === 0 ? `# Section ${i} heading\n` : `Paragraph ${i} speaks of item-${i}-word and nothing else.\n`,
  ).join('\n');

type Block = {
  block_id: string;
  version: number;
  text: string;
  type: string;
  original_text: string;
  original_type: string;
  edited_text: string | null;
  edited_type: string | null;
  status: string;
  reviewer_note: string | null;
  current_revision_id: string;
  page: number;
};

const get = async (jobId: string, id: string): Promise<Block> =>
  json(await server.call('GET', `/jobs/${jobId}/blocks/${id}`));
const patch = (jobId: string, b: Block, body: Record<string, unknown>) =>
  server.call('PATCH', `/jobs/${jobId}/blocks/${b.block_id}`, { json: { version: b.version, ...body } });
const undo = (jobId: string, items: { block_id: string; version: number; revision_id: string }[]) =>
  server.call('POST', `/jobs/${jobId}/blocks/undo`, { json: { items } });
const bulk = (jobId: string, body: Record<string, unknown>) =>
  server.call('POST', `/jobs/${jobId}/blocks/review`, { json: body });

const exportedDocument = async (jobId: string) =>
  exportedMarkdown(await finalizedExport(server, jobId, 'auto_reject_pending'));

describe('clearing an edit', () => {
  it('null brings back the extracted text, an edit back to the original is no edit, and an empty text needs allow_empty', async () => {
    const job = await ingest(server, 'clear.md', enc(doc(4)));
    let b = await get(job.job_id, 'b2');
    const original = b.text;
    b = await json(await patch(job.job_id, b, { edited_text: 'A corrected reading.' }));
    expect(b).toMatchObject({ status: 'edited', edited_text: 'A corrected reading.' });
    // null: back to the machine's reading (JSON null must not arrive as "").
    b = await json(await patch(job.job_id, b, { edited_text: null }));
    expect(b).toMatchObject({ edited_text: null, text: original, status: 'pending' });
    // The original text sent back is the same as clearing.
    b = await json(await patch(job.job_id, b, { edited_text: 'Another reading.' }));
    b = await json(await patch(job.job_id, b, { edited_text: original }));
    expect(b).toMatchObject({ edited_text: null, status: 'pending' });
    // Empty or blank text is refused, and nothing is written.
    for (const text of ['', '   \n ']) {
      const res = await patch(job.job_id, b, { edited_text: text });
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe('EMPTY_TEXT');
    }
    expect((await get(job.job_id, 'b2')).version).toBe(b.version);
    // Unless the reviewer means it.
    b = await json(await patch(job.job_id, b, { edited_text: '', allow_empty: true }));
    expect(b).toMatchObject({ edited_text: '', status: 'edited' });
    // Chunks follow the same rule.
    const chunk = (await listPage(server, `/jobs/${job.job_id}/chunks?limit=1`)).items[0];
    const res = await server.call('PATCH', `/jobs/${job.job_id}/chunks/${chunk.chunk_id}`, {
      json: { version: chunk.version, edited_text: '' },
    });
    expect((await json(res)).error.code).toBe('EMPTY_TEXT');
    const cleared = await json(
      await server.call('PATCH', `/jobs/${job.job_id}/chunks/${chunk.chunk_id}`, {
        json: { version: chunk.version, edited_text: null, status: 'approved' },
      }),
    );
    expect(cleared).toMatchObject({ edited_text: null, status: 'approved' });
  });

  it('documents null and allow_empty in the OpenAPI', async () => {
    const spec = await json(await server.call('GET', '/openapi.json'));
    const body = JSON.stringify(spec.paths['/jobs/{job_id}/blocks/{block_id}'].patch.requestBody);
    expect(body).toContain('null (or the extracted text itself) clears the edit');
    expect(body).toContain('allow_empty');
    expect(spec.paths['/jobs/{job_id}/blocks/undo'].post).toBeTruthy();
    expect(spec.paths['/jobs/{job_id}/blocks/review'].post).toBeTruthy();
  });
});

describe('undo', () => {
  it('restores status, text, type and note exactly, as one revision labelled undo', async () => {
    const job = await ingest(server, 'undo.md', enc(doc(6)));
    let b = await get(job.job_id, 'b3');
    b = await json(
      await patch(job.job_id, b, {
        edited_text: 'Reviewed words.',
        edited_type: 'caption',
        reviewer_note: 'checked',
        status: 'approved',
      }),
    );
    const before = b;
    // Reject, then undo: the block is as it was, text and all.
    b = await json(await patch(job.job_id, b, { status: 'rejected', reviewer_note: null }));
    const res = await undo(job.job_id, [
      { block_id: b.block_id, version: b.version, revision_id: b.current_revision_id },
    ]);
    expect(res.status).toBe(200);
    const out = await json(res);
    expect(out).toMatchObject({ updated: 1, unchanged: 0 });
    const after = await get(job.job_id, 'b3');
    expect(after).toMatchObject({
      status: before.status,
      edited_text: 'Reviewed words.',
      edited_type: 'caption',
      reviewer_note: 'checked',
      version: before.version + 2,
    });
    expect(out.blocks[0]).toEqual(after);
    const audit = await listPage(server, `/jobs/${job.job_id}/audit?entity_id=b3&limit=1`);
    expect(audit.items[0]).toMatchObject({
      action: 'undo',
      undoes_revision_id: b.current_revision_id,
      after: { status: 'approved', edited_text: 'Reviewed words.' },
    });
    // The edit (sent with status approved) is named, as LongParser names it, by the status it left.
    const first = await listPage(server, `/jobs/${job.job_id}/audit?entity_id=b3&action=approved`);
    expect(first.items).toHaveLength(1);
    expect(after).toMatchObject({ text: 'Reviewed words.', type: 'caption', original_text: before.original_text });
    // Undo of the first edit: back to the extracted block, its text and type the extracted ones again.
    const reset = await json(
      await undo(job.job_id, [{ block_id: 'b3', version: after.version, revision_id: first.items[0].revision_id }]),
    );
    expect(reset.blocks[0]).toMatchObject({
      status: 'pending',
      edited_text: null,
      edited_type: null,
      reviewer_note: null,
      text: before.original_text,
      type: before.original_type,
    });
  });

  it('refuses to undo over a later change (409 listing it) and names unknown blocks (404)', async () => {
    const job = await ingest(server, 'undo-stale.md', enc(doc(6)));
    let b = await get(job.job_id, 'b2');
    b = await json(await patch(job.job_id, b, { status: 'approved' }));
    const rev = b.current_revision_id;
    const other = await json(await patch(job.job_id, b, { reviewer_note: 'another reviewer was here' }));
    const res = await undo(job.job_id, [{ block_id: 'b2', version: other.version, revision_id: rev }]);
    expect(res.status).toBe(409);
    const err = (await json(res)).error;
    expect(err.code).toBe('VERSION_CONFLICT');
    expect(err.details.stale[0]).toMatchObject({
      block_id: 'b2',
      current: { reviewer_note: 'another reviewer was here' },
    });
    const { stale_chunks: _, ...otherBlock } = other;
    expect(await get(job.job_id, 'b2')).toEqual(otherBlock);
    const stale = await undo(job.job_id, [
      { block_id: 'b2', version: b.version, revision_id: other.current_revision_id },
    ]);
    expect(stale.status).toBe(409);
    const missing = await undo(job.job_id, [{ block_id: 'b999', version: 1, revision_id: rev }]);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.details.missing).toEqual(['b999']);
    const wrongRevision = await undo(job.job_id, [{ block_id: 'b3', version: 1, revision_id: rev }]);
    expect(wrongRevision.status).toBe(400);
  });
});

describe('bulk review', () => {
  it('approves listed blocks in one transaction with one revision each, 409 listing stale ones and writing nothing', async () => {
    const job = await ingest(server, 'bulk.md', enc(doc(12)));
    const blocks = (await listAll(server, `/jobs/${job.job_id}/blocks`)) as Block[];
    const edited = await json(await patch(job.job_id, blocks[1]!, { edited_text: 'Edited before the bulk approve.' }));
    const items = blocks.map((b, i) => ({ block_id: b.block_id, version: i === 1 ? edited.version : b.version }));
    const auditBefore = (await listPage(server, `/jobs/${job.job_id}/audit?limit=1`)).total;
    // One stale version: nothing is written.
    const stale = await bulk(job.job_id, {
      status: 'approved',
      items: items.map((it, i) => (i === 1 ? { ...it, version: 1 } : it)),
    });
    expect(stale.status).toBe(409);
    expect((await json(stale)).error.details.stale.map((s: Block) => s.block_id)).toEqual([blocks[1]!.block_id]);
    expect((await listPage(server, `/jobs/${job.job_id}/audit?limit=1`)).total).toBe(auditBefore);
    const res = await bulk(job.job_id, { status: 'approved', items });
    expect(res.status).toBe(200);
    const out = await json(res);
    // The edited block keeps its edit and its status.
    expect(out).toMatchObject({ updated: blocks.length - 1, unchanged: 1 });
    expect(await get(job.job_id, blocks[1]!.block_id)).toMatchObject({
      status: 'edited',
      edited_text: 'Edited before the bulk approve.',
    });
    expect((await listPage(server, `/jobs/${job.job_id}/audit?action=approved`)).total).toBe(blocks.length - 1);
    // Undo of the whole bulk action in one request.
    const back = await json(
      await undo(
        job.job_id,
        out.blocks.map((b: Block) => ({
          block_id: b.block_id,
          version: b.version,
          revision_id: b.current_revision_id,
        })),
      ),
    );
    expect(back.updated).toBe(blocks.length - 1);
    const now = (await listAll(server, `/jobs/${job.job_id}/blocks`)) as Block[];
    expect(now.map((b) => [b.status, b.edited_text ?? b.text])).toEqual(
      blocks.map((b, i) => [i === 1 ? 'edited' : 'pending', i === 1 ? 'Edited before the bulk approve.' : b.text]),
    );
  });

  it('reviews by filter and by page, and refuses items with filter or a block twice', async () => {
    const job = await ingest(server, 'bulk-filter.md', enc(doc(12)));
    const rejected = await json(await bulk(job.job_id, { status: 'rejected', filter: { type: 'heading' } }));
    expect(rejected.updated).toBe(3);
    expect(rejected.blocks.every((b: Block) => b.status === 'rejected')).toBe(true);
    expect(rejected.stale_chunks).toBeGreaterThan(0);
    const approved = await json(
      await bulk(job.job_id, {
        status: 'approved',
        filter: { page: 1, status: 'pending' },
        reviewer_note: 'page done',
      }),
    );
    expect(approved.updated).toBe(9);
    expect((await json(await server.call('GET', `/jobs/${job.job_id}`))).review.blocks).toMatchObject({
      pending: 0,
      approved: 9,
      rejected: 3,
    });
    const both = await bulk(job.job_id, { status: 'approved', filter: {}, items: [{ block_id: 'b1', version: 1 }] });
    expect(both.status).toBe(400);
    const twice = await bulk(job.job_id, {
      status: 'approved',
      items: [
        { block_id: 'b1', version: 2 },
        { block_id: 'b1', version: 2 },
      ],
    });
    expect(twice.status).toBe(400);
    const edited = await bulk(job.job_id, { status: 'edited', filter: {} });
    expect(edited.status).toBe(400);
  });
});

describe('random review sequences against a model', () => {
  type State = { status: string; edited_text: string | null; edited_type: string | null; reviewer_note: string | null };
  const stateOf = (b: Block): State => ({
    status: b.status,
    edited_text: b.edited_text,
    edited_type: b.edited_type,
    reviewer_note: b.reviewer_note,
  });

  it('keeps every block as the model says through approve, reject, reset, edits, notes, page approvals and undos, down to the export', async () => {
    const rand = seededRandom(1317);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const job = await ingest(server, 'random.md', enc(doc(16)));
    const jobId = job.job_id;
    const initial = (await listAll(server, `/jobs/${jobId}/blocks`)) as Block[];
    const texts = new Map(initial.map((b) => [b.block_id, b.text]));
    const model = new Map(initial.map((b) => [b.block_id, stateOf(b)]));
    const versions = new Map(initial.map((b) => [b.block_id, b.version]));
    // The desk's undo stack: each entry the blocks an action changed, with the revision that changed them and the state before.
    const undoStack: { block_id: string; revision_id: string; before: State }[][] = [];
    const ids = initial.map((b) => b.block_id);
    const record = (changed: Block[], befores: Map<string, State>) => {
      for (const b of changed) {
        model.set(b.block_id, stateOf(b));
        versions.set(b.block_id, b.version);
      }
      if (changed.length)
        undoStack.push(
          changed.map((b) => ({
            block_id: b.block_id,
            revision_id: b.current_revision_id,
            before: befores.get(b.block_id)!,
          })),
        );
    };
    for (let step = 0; step < 60; step++) {
      const id = pick(ids);
      const cur = { block_id: id, version: versions.get(id)! } as Block;
      const was = model.get(id)!;
      const action = pick([
        'approve',
        'reject',
        'reset',
        'edit',
        'edit-back',
        'clear',
        'note',
        'retype',
        'page',
        'undo',
        'undo',
      ]);
      if (action === 'undo') {
        const entry = undoStack.pop();
        if (!entry) continue;
        const res = await undo(
          jobId,
          entry.map((e) => ({ block_id: e.block_id, version: versions.get(e.block_id)!, revision_id: e.revision_id })),
        );
        expect(res.status, `step ${step} undo`).toBe(200);
        for (const b of (await json(res)).blocks as Block[]) {
          expect(stateOf(b), `step ${step}: undo restores ${b.block_id}`).toEqual(
            entry.find((e) => e.block_id === b.block_id)!.before,
          );
          model.set(b.block_id, stateOf(b));
          versions.set(b.block_id, b.version);
        }
        continue;
      }
      if (action === 'page') {
        const pending = ids.filter((i) => model.get(i)!.status === 'pending');
        if (!pending.length) continue;
        const res = await bulk(jobId, {
          status: 'approved',
          items: pending.map((i) => ({ block_id: i, version: versions.get(i)! })),
        });
        expect(res.status).toBe(200);
        record((await json(res)).blocks, new Map(pending.map((i) => [i, model.get(i)!])));
        continue;
      }
      const body: Record<string, unknown> =
        action === 'approve'
          ? { status: 'approved' }
          : action === 'reject'
            ? { status: 'rejected' }
            : action === 'reset'
              ? { status: 'pending' }
              : action === 'edit'
                ? { edited_text: `Reviewed text ${step} for ${id}.` }
                : action === 'edit-back'
                  ? { edited_text: texts.get(id)! }
                  : action === 'clear'
                    ? { edited_text: null, edited_type: null }
                    : action === 'retype'
                      ? { edited_type: pick(['paragraph', 'caption', 'heading']) }
                      : { reviewer_note: rand() < 0.3 ? null : `note ${step}` };
      if (body.status === was.status) continue;
      const res = await patch(jobId, cur, body);
      if (res.status === 400) {
        // Only a no-op edit can be refused here (status edited without any edit).
        expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
        continue;
      }
      expect(res.status, `step ${step} ${action}`).toBe(200);
      record([await json(res)], new Map([[id, was]]));
    }
    // What the server keeps is what the model says, and no block lost its words.
    const final = (await listAll(server, `/jobs/${jobId}/blocks`)) as Block[];
    for (const b of final) {
      expect(stateOf(b), b.block_id).toEqual(model.get(b.block_id));
      expect((b.edited_text ?? b.text).trim()).not.toBe('');
    }
    // The export holds each accepted block's effective text and none of the rejected or pending ones.
    // The document's title leads it as a comment whatever its block's review: only the body counts here.
    const md = (await exportedDocument(jobId)).replace(/<!--[\s\S]*?-->/g, '');
    for (const b of final) {
      const text = (b.edited_text ?? b.text).replace(/^#+\s*/, '');
      if (b.status === 'approved' || b.status === 'edited') expect(md, `${b.block_id} (${b.status})`).toContain(text);
      else if (
        !final.some(
          (o) =>
            o !== b && (o.status === 'approved' || o.status === 'edited') && (o.edited_text ?? o.text).includes(text),
        )
      )
        expect(md).not.toContain(text);
    }
  });
});

import { createHash } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll, listPage } from '../helpers/app.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

const DOC =
  '# Report\n\nFirst paragraph.\n\nSecond paragraph.\n\n## Details\n\n- point one\n- point two\n\nClosing words.\n';
const finalize = (jobId: string, body?: unknown) =>
  server.call('POST', `/jobs/${jobId}/finalize`, body === undefined ? {} : { json: body });
const statuses = async (jobId: string, kind: 'blocks' | 'chunks') =>
  (await listAll(server, `/jobs/${jobId}/${kind}`)).map((i) => i.status);

describe('finalize', () => {
  it('require_all_approved answers 409 with the pending counts and changes nothing', async () => {
    const job = await ingest(server, 'r.md', enc(DOC));
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/b1`, { json: { version: 1, status: 'approved' } });
    const res = await finalize(job.job_id, { finalize_policy: 'require_all_approved' });
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body.error.code).toBe('PENDING_ITEMS');
    expect(body.error.details).toEqual({
      pending_blocks: job.total_blocks - 1,
      pending_chunks: job.total_chunks,
      stale_chunks: 0,
    });
    expect((await json(await server.call('GET', `/jobs/${job.job_id}`))).status).toBe('ready_for_review');
  });

  it('require_all_approved finalizes once everything is reviewed', async () => {
    const job = await ingest(server, 'r2.md', enc(DOC));
    for (const kind of ['blocks', 'chunks'] as const) {
      for (const item of await listAll(server, `/jobs/${job.job_id}/${kind}`)) {
        const id = item.block_id ?? item.chunk_id;
        expect(
          (
            await server.call('PATCH', `/jobs/${job.job_id}/${kind}/${id}`, {
              json: { version: 1, status: 'approved' },
            })
          ).status,
        ).toBe(200);
      }
    }
    const res = await finalize(job.job_id, { finalize_policy: 'require_all_approved' });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: 'finalized', finalize_policy: 'require_all_approved' });
  });

  it.each(['auto_approve_pending', 'approve_pending', 'approve_all_pending'])(
    '%s approves what is pending',
    async (policy) => {
      const job = await ingest(server, `${policy}.md`, enc(DOC));
      await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, { json: { version: 1, status: 'rejected' } });
      const res = await finalize(job.job_id, { finalize_policy: policy });
      expect(res.status).toBe(200);
      const blocks = await statuses(job.job_id, 'blocks');
      expect(blocks.filter((s) => s === 'rejected')).toHaveLength(1);
      expect(blocks.filter((s) => s === 'approved')).toHaveLength(job.total_blocks - 1);
      expect(await statuses(job.job_id, 'chunks')).not.toContain('pending');
      const audit = await listPage(server, `/jobs/${job.job_id}/audit?action=auto_approved&limit=1`);
      expect(audit.total).toBeGreaterThanOrEqual(job.total_blocks - 1);
    },
  );

  it.each(['auto_reject_pending', 'reject_pending', undefined])(
    '%s rejects pending blocks; chunks follow their blocks',
    async (policy) => {
      const job = await ingest(server, `${policy}.md`, enc(DOC));
      const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
      // Approve only the first section (heading + two paragraphs).
      for (const b of blocks.slice(0, 3))
        await server.call('PATCH', `/jobs/${job.job_id}/blocks/${b.block_id}`, {
          json: { version: 1, status: 'approved' },
        });
      const res = await finalize(job.job_id, policy ? { finalize_policy: policy } : undefined);
      expect(res.status).toBe(200);
      expect((await json(res)).finalize_policy).toBe(policy ?? 'auto_reject_pending');
      expect(await statuses(job.job_id, 'blocks')).toEqual(blocks.map((_, i) => (i < 3 ? 'approved' : 'rejected')));
      const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
      expect(chunks.filter((c) => c.status === 'approved').map((c) => c.section_path)).toEqual([['Report']]);
      for (const c of chunks.filter((c) => c.status === 'approved')) expect(c.text).not.toContain('point one');
    },
  );

  it('refuses an unknown policy (400), a second finalize and review after finalize (409 INVALID_STATE)', async () => {
    const job = await ingest(server, 'twice.md', enc(DOC));
    expect((await finalize(job.job_id, { finalize_policy: 'approve_everything' })).status).toBe(400);
    expect((await finalize(job.job_id)).status).toBe(200);
    const again = await finalize(job.job_id);
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('INVALID_STATE');
    const patch = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b1`, {
      json: { version: 2, status: 'approved' },
    });
    expect(patch.status).toBe(409);
    expect((await json(patch)).error.code).toBe('INVALID_STATE');
    expect((await server.call('POST', `/jobs/${job.job_id}/rechunk`)).status).toBe(409);
    expect((await server.call('POST', `/jobs/${job.job_id}/cancel`)).status).toBe(409);
  });
});

describe('export', () => {
  it('is refused before finalize', async () => {
    const job = await ingest(server, 'early.md', enc(DOC));
    const res = await server.call('GET', `/jobs/${job.job_id}/export`);
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('INVALID_STATE');
  });

  it('holds the reviewed document, its records, the original and a manifest with every sha256', async () => {
    const pdf = await makeStructuredPdf();
    const job = await ingest(server, 'report.pdf', pdf);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const para = blocks.find((b) => b.type === 'paragraph')!;
    const dropped = blocks.filter((b) => b.type === 'paragraph')[1]!;
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/${para.block_id}`, {
      json: { version: 1, edited_text: 'REVIEWED PARAGRAPH TEXT.' },
    });
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/${dropped.block_id}`, {
      json: { version: 1, status: 'rejected' },
    });
    expect((await finalize(job.job_id, { finalize_policy: 'auto_approve_pending' })).status).toBe(200);

    const res = await server.call('GET', `/jobs/${job.job_id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="report-lectern\.zip"/);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(
      [
        'audit.jsonl',
        'blocks.json',
        'blocks.jsonl',
        'chunks.json',
        'chunks.jsonl',
        'document.md',
        'manifest.json',
        'original-report.pdf',
        'rejected.jsonl',
      ].sort(),
    );
    const lines = (name: string) =>
      strFromU8(files[name]!)
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));

    const doc = strFromU8(files['document.md']!);
    expect(doc).toContain('REVIEWED PARAGRAPH TEXT.');
    expect(doc).not.toContain(para.text.slice(0, 40));
    expect(doc).not.toContain(dropped.text.slice(0, 40));
    expect(doc).toMatch(/^# /m);
    expect(doc).toContain('| --- |');

    const exportedBlocks = lines('blocks.jsonl');
    expect(exportedBlocks).toHaveLength(blocks.length - 1);
    expect(exportedBlocks.find((b) => b.block_id === para.block_id)).toMatchObject({
      status: 'edited',
      text: 'REVIEWED PARAGRAPH TEXT.',
      original_text: para.text,
      edited_text: 'REVIEWED PARAGRAPH TEXT.',
    });
    // LongParser's blocks.json and chunks.json: the same records as one JSON array each.
    expect(JSON.parse(strFromU8(files['blocks.json']!))).toEqual(exportedBlocks);
    expect(JSON.parse(strFromU8(files['chunks.json']!))).toEqual(lines('chunks.jsonl'));
    const rejected = lines('rejected.jsonl');
    expect(rejected.filter((r) => r.entity_type === 'block').map((r) => r.block_id)).toEqual([dropped.block_id]);
    const exportedChunks = lines('chunks.jsonl');
    expect(exportedChunks.length).toBeGreaterThan(0);
    expect(exportedChunks.every((c) => c.status === 'approved' || c.status === 'edited')).toBe(true);
    expect(exportedChunks.map((c) => c.text).join('\n')).toContain('REVIEWED PARAGRAPH TEXT.');
    const audit = lines('audit.jsonl');
    const trail = await listPage(server, `/jobs/${job.job_id}/audit?limit=500`);
    expect(audit).toHaveLength(trail.total);
    expect(audit.at(-1).action).toBe('finalize');
    expect(Buffer.from(files['original-report.pdf']!).equals(pdf)).toBe(true);

    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    expect(manifest.job.job_id).toBe(job.job_id);
    expect(manifest.source.sha256).toBe(createHash('sha256').update(pdf).digest('hex'));
    expect(manifest.app).toMatchObject({ name: 'lectern' });
    expect(manifest.app.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.counts).toMatchObject({
      blocks: blocks.length - 1,
      rejected_blocks: 1,
      chunks: exportedChunks.length,
      revisions: audit.length,
    });
    const listed = Object.fromEntries(manifest.files.map((f: any) => [f.name, f.sha256]));
    expect(Object.keys(listed).sort()).toEqual(
      Object.keys(files)
        .filter((n) => n !== 'manifest.json')
        .sort(),
    );
    for (const [name, sha] of Object.entries(listed))
      expect(createHash('sha256').update(files[name]!).digest('hex'), name).toBe(sha);
  });
});

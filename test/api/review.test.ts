import { describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll, listPage } from '../helpers/app.js';
import { makeManyBlocksPdf, manyBlocksSentence } from '../helpers/make-pdf.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer();

/** Three sections of two paragraphs each: every section is one chunk at the default size. */
const SECTIONS_MD = ['Alpha', 'Beta', 'Gamma']
  .map(
    (name) =>
      `# ${name}\n\n${name} opening paragraph with enough words to matter.\n\n${name} closing paragraph, also with words.\n`,
  )
  .join('\n');

async function block(jobId: string, blockId: string) {
  return json(await server.call('GET', `/jobs/${jobId}/blocks/${blockId}`));
}

describe('block review', () => {
  it('bumps the version and writes one audit revision with the reviewer, note, before and after', async () => {
    const job = await ingest(server, 'a.md', enc(SECTIONS_MD));
    const res = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
      json: { version: 1, status: 'approved', reviewer_note: 'looks right' },
      headers: { 'x-reviewer': 'ada' },
    });
    expect(res.status).toBe(200);
    const b = await json(res);
    expect(b).toMatchObject({ block_id: 'b2', status: 'approved', version: 2, reviewer_note: 'looks right' });
    const audit = await listPage(server, `/jobs/${job.job_id}/audit`);
    expect(audit.total).toBe(1);
    expect(audit.items[0]).toMatchObject({
      entity_type: 'block',
      entity_id: 'b2',
      action: 'approved',
      reviewer_id: 'ada',
      reviewer_note: 'looks right',
      before: { status: 'pending', version: 1 },
      after: { status: 'approved', version: 2 },
    });
    expect(b.current_revision_id).toBe(audit.items[0].revision_id);
    // Without X-Reviewer the key's name stands in.
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/b3`, { json: { version: 1, status: 'rejected' } });
    const latest = await listPage(server, `/jobs/${job.job_id}/audit?limit=1`);
    expect(latest.items[0]).toMatchObject({ entity_id: 'b3', action: 'rejected', reviewer_id: 'service' });
  });

  it('answers a stale version with 409, the current block in the body, and writes nothing', async () => {
    const job = await ingest(server, 'b.md', enc(SECTIONS_MD));
    const ok = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
      json: { version: 1, edited_text: 'First reviewer text' },
    });
    expect(ok.status).toBe(200);
    const before = await block(job.job_id, 'b2');
    const stale = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b2`, {
      json: { version: 1, edited_text: 'Second reviewer text' },
    });
    expect(stale.status).toBe(409);
    const body = await json(stale);
    expect(body.error.code).toBe('VERSION_CONFLICT');
    expect(body.error.details.current).toEqual(before);
    expect(await block(job.job_id, 'b2')).toEqual(before);
    const audit = await listPage(server, `/jobs/${job.job_id}/audit`);
    expect(audit.total).toBe(1);
    const chunkStale = await server.call(
      'PATCH',
      `/jobs/${job.job_id}/chunks/${(await listAll(server, `/jobs/${job.job_id}/chunks`))[0]!.chunk_id}`,
      {
        json: { version: 7, status: 'approved' },
      },
    );
    expect(chunkStale.status).toBe(409);
    expect((await json(chunkStale)).error.details.current.version).toBe(1);
  });

  it('validates edits: unknown block 404, nothing to change 400, bad type 400, unknown field 400', async () => {
    const job = await ingest(server, 'c.md', enc(SECTIONS_MD));
    const missing = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b999`, {
      json: { version: 1, status: 'approved' },
    });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('BLOCK_NOT_FOUND');
    for (const body of [
      { version: 1 },
      { version: 1, edited_type: 'poem' },
      { version: 1, status: 'maybe' },
      { status: 'approved' },
      { version: 1, status: 'approved', colour: 'red' },
    ]) {
      const res = await server.call('PATCH', `/jobs/${job.job_id}/blocks/b1`, { json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
    }
    expect((await block(job.job_id, 'b1')).version).toBe(1);
  });
});

describe('rechunk', () => {
  it('marks chunks stale after a block edit and rebuilds them keeping the reviews of unchanged chunks', async () => {
    const job = await ingest(server, 'd.md', enc(SECTIONS_MD));
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.map((c) => c.section_path)).toEqual([['Alpha'], ['Beta'], ['Gamma']]);
    const [alpha, beta, gamma] = chunks;
    // Review Alpha's and Gamma's chunks; then edit a block of Beta and reject one of Gamma.
    for (const c of [alpha!, gamma!]) {
      expect(
        (
          await server.call('PATCH', `/jobs/${job.job_id}/chunks/${c.chunk_id}`, {
            json: { version: 1, status: 'approved' },
          })
        ).status,
      ).toBe(200);
    }
    const betaBlock = beta!.block_ids[1];
    const edit = await json(
      await server.call('PATCH', `/jobs/${job.job_id}/blocks/${betaBlock}`, {
        json: { version: 1, edited_text: 'Beta rewritten by a reviewer.' },
      }),
    );
    expect(edit).toMatchObject({ status: 'edited', stale_chunks: 1 });
    const gammaBlock = gamma!.block_ids[2];
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/${gammaBlock}`, {
      json: { version: 1, status: 'rejected' },
    });
    const stale = await listAll(server, `/jobs/${job.job_id}/chunks?stale=true`);
    expect(stale.map((c) => c.chunk_id).sort()).toEqual([beta!.chunk_id, gamma!.chunk_id].sort());

    const res = await server.call('POST', `/jobs/${job.job_id}/rechunk`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      status: 'rechunked',
      job_id: job.job_id,
      total_chunks: 3,
      kept: 1,
      added: 2,
      removed: 2,
    });
    const after = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(after[0]).toMatchObject({ chunk_id: alpha!.chunk_id, status: 'approved', version: 2, stale: false });
    expect(after[1]!.text).toContain('Beta rewritten by a reviewer.');
    expect(after[1]!.status).toBe('pending');
    expect(after[2]!.text).not.toContain('Gamma closing paragraph');
    expect(after[2]!.block_ids).not.toContain(gammaBlock);
    // Re-chunking again changes nothing.
    expect(await json(await server.call('POST', `/jobs/${job.job_id}/rechunk`))).toMatchObject({
      kept: 3,
      added: 0,
      removed: 0,
    });
  });

  it('applies an edited type: a paragraph retyped as a heading starts a new section', async () => {
    const job = await ingest(server, 'e.md', enc('# Top\n\nIntro words here.\n\nNew Part\n\nBody of the new part.\n'));
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const newPart = blocks.find((b) => b.text === 'New Part')!;
    await server.call('PATCH', `/jobs/${job.job_id}/blocks/${newPart.block_id}`, {
      json: { version: 1, edited_type: 'heading' },
    });
    const filtered = await listPage(server, `/jobs/${job.job_id}/blocks?type=heading`);
    expect(filtered.items.map((b: any) => b.block_id)).toContain(newPart.block_id);
    await server.call('POST', `/jobs/${job.job_id}/rechunk`);
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.some((c) => c.section_path.includes('New Part') || c.text.startsWith('New Part'))).toBe(true);
  });
});

describe('a 600-block document', () => {
  it('lists every block in pages of at most 500 and reviews past item 500', async () => {
    const job = await ingest(server, 'many.pdf', await makeManyBlocksPdf(600));
    expect(job.total_blocks).toBe(600);
    const first = await listPage(server, `/jobs/${job.job_id}/blocks`);
    expect(first.items).toHaveLength(100);
    expect(first.total).toBe(600);
    const tail = await listPage(server, `/jobs/${job.job_id}/blocks?skip=500&limit=500`);
    expect(tail.items).toHaveLength(100);
    expect(tail.items[99].text).toContain(manyBlocksSentence(600).slice(0, 30));
    expect((await server.call('GET', `/jobs/${job.job_id}/blocks?limit=501`)).status).toBe(400);
    const target = tail.items[50];
    const res = await server.call('PATCH', `/jobs/${job.job_id}/blocks/${target.block_id}`, {
      json: { version: 1, status: 'approved' },
    });
    expect(res.status).toBe(200);
    const approved = await listPage(server, `/jobs/${job.job_id}/blocks?status=approved`);
    expect(approved.items.map((b: any) => b.block_id)).toEqual([target.block_id]);
    const onPage = await listPage(server, `/jobs/${job.job_id}/blocks?page=${target.page}`);
    expect(onPage.items.every((b: any) => b.page === target.page)).toBe(true);
    expect(onPage.total).toBeGreaterThan(10);
  });
});

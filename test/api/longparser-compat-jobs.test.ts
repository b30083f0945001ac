import { createHash } from 'node:crypto';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { enc } from '../helpers/app.js';
import { useServer } from '../helpers/use-server.js';

// A client written the way LongParser 0.1.4's own clients talk to its FastAPI server: X-API-Key on every
// request, a multipart `file` upload, its pydantic request bodies (BlockReviewUpdate, ChunkReviewUpdate,
// FinalizeRequest) and its reading of the answers: lists are JSON arrays, errors are read from `detail`,
// audit actions are review statuses. Nothing here uses a Lectern-only header or field to get its work done.

const server = useServer();

const DOC = [
  '# Field guide',
  'Owls hunt at night and see well in the dark.',
  'Herons wait in shallow water for fish.',
  '## Nesting',
  'Swifts build nests of saliva under roofs.',
  'Wrens hide their nests in hedges.',
  'Magpies collect bright things.',
].join('\n\n');

/** requests.request(method, base + path, headers={"X-API-Key": key}, json=body) */
function lp(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'X-API-Key': server.key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}
const lpJson = async (method: string, path: string, body?: unknown) =>
  (await lp(method, path, body)).json() as Promise<any>;

/** POST /jobs with files={"file": (name, bytes)}; then poll GET /jobs/{id} until review can start. */
async function uploadAndWait(name: string, text: string): Promise<{ created: any; jobId: string }> {
  const form = new FormData();
  form.append('file', new Blob([enc(text) as Uint8Array<ArrayBuffer>], { type: 'text/markdown' }), name);
  const res = await fetch(`${server.url}/jobs`, { method: 'POST', headers: { 'X-API-Key': server.key }, body: form });
  expect(res.status).toBe(201);
  const created = await res.json();
  await expect
    .poll(async () => (await lpJson('GET', `/jobs/${created.job_id}`)).status, { timeout: 120_000, interval: 50 })
    .toBe('ready_for_review');
  return { created, jobId: created.job_id as string };
}

/** BlockReviewUpdate as pydantic dumps it: every field, defaults included. */
const blockUpdate = (
  version: number,
  status: string,
  o: { edited_text?: string; edited_type?: string; reviewer_note?: string } = {},
) => ({
  status,
  edited_text: o.edited_text ?? null,
  edited_type: o.edited_type ?? null,
  reviewer_note: o.reviewer_note ?? '',
  version,
});

/** Parses an RFC 8288 Link header the way requests' `response.links` does: rel -> url. */
function links(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (res.headers.get('link') ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part);
    if (m) out[m[2]!] = m[1]!;
  }
  return out;
}

describe('a LongParser client against Lectern', () => {
  it('reads blocks, chunks and the audit trail as JSON arrays, paging with X-Total-Count and Link; GET /jobs as {jobs, total}', async () => {
    const { jobId } = await uploadAndWait('lists.md', DOC);
    const job = await lpJson('GET', `/jobs/${jobId}`);

    // Blocks, two at a time, following rel="next" to the end.
    const first = await lp('GET', `/jobs/${jobId}/blocks?skip=0&limit=2`);
    expect(first.status).toBe(200);
    const page = await first.json();
    expect(Array.isArray(page)).toBe(true);
    expect(page).toHaveLength(2);
    expect(Number(first.headers.get('x-total-count'))).toBe(job.total_blocks);
    const rels = links(first);
    expect(Object.keys(rels).sort()).toEqual(['first', 'last', 'next']);
    expect(new URL(rels.last!).searchParams.get('skip')).toBe(String(Math.floor((job.total_blocks - 1) / 2) * 2));
    const seen = [...page];
    let next: string | undefined = rels.next;
    let last: Response = first;
    while (next) {
      last = await fetch(next, { headers: { 'X-API-Key': server.key } });
      seen.push(...(await last.clone().json()));
      next = links(last).next;
    }
    expect(links(last).prev).toBeDefined();
    expect(seen.map((b) => b.block_id)).toEqual(
      (await lpJson('GET', `/jobs/${jobId}/blocks?limit=500`)).map((b: any) => b.block_id),
    );
    expect(seen).toHaveLength(job.total_blocks);
    // LongParser's BlockResponse fields, and its filters.
    for (const key of [
      'block_id',
      'type',
      'text',
      'order_index',
      'heading_level',
      'indent_level',
      'hierarchy_path',
      'page_number',
      'review_status',
      'current_revision_id',
      'version',
    ]) {
      expect(seen[0]).toHaveProperty(key);
    }
    const headings = await lpJson('GET', `/jobs/${jobId}/blocks?type=heading`);
    expect(headings.map((b: any) => b.text)).toEqual(['Field guide', 'Nesting']);

    const chunksRes = await lp('GET', `/jobs/${jobId}/chunks?limit=1`);
    const chunks = await chunksRes.json();
    expect(Array.isArray(chunks)).toBe(true);
    expect(chunks).toHaveLength(1);
    expect(Number(chunksRes.headers.get('x-total-count'))).toBe(job.total_chunks);
    for (const key of [
      'chunk_id',
      'text',
      'token_count',
      'chunk_type',
      'section_path',
      'page_numbers',
      'block_ids',
      'review_status',
      'current_revision_id',
      'version',
    ]) {
      expect(chunks[0]).toHaveProperty(key);
    }
    // Chunks one at a time, following rel="next" to the end as blocks did.
    expect(job.total_chunks).toBeGreaterThan(1);
    const chunkRels = links(chunksRes);
    expect(Object.keys(chunkRels).sort()).toEqual(['first', 'last', 'next']);
    expect(new URL(chunkRels.last!).searchParams.get('skip')).toBe(String(job.total_chunks - 1));
    const chunksSeen = [...chunks];
    let nextChunks: string | undefined = chunkRels.next;
    let lastChunks: Response = chunksRes;
    while (nextChunks) {
      lastChunks = await fetch(nextChunks, { headers: { 'X-API-Key': server.key } });
      expect(Number(lastChunks.headers.get('x-total-count'))).toBe(job.total_chunks);
      chunksSeen.push(...(await lastChunks.clone().json()));
      nextChunks = links(lastChunks).next;
    }
    expect(links(lastChunks).prev).toBeDefined();
    expect(chunksSeen.map((c) => c.chunk_id)).toEqual(
      (await lpJson('GET', `/jobs/${jobId}/chunks?limit=500`)).map((c: any) => c.chunk_id),
    );
    expect(new Set(chunksSeen.map((c) => c.chunk_id)).size).toBe(job.total_chunks);

    await lp('PATCH', `/jobs/${jobId}/blocks/${seen[1].block_id}`, blockUpdate(seen[1].version, 'approved'));
    const auditRes = await lp('GET', `/jobs/${jobId}/audit`);
    const audit = await auditRes.json();
    expect(Array.isArray(audit)).toBe(true);
    expect(audit).toHaveLength(1);
    expect(auditRes.headers.get('x-total-count')).toBe('1');
    expect(links(auditRes).next).toBeUndefined();

    const listed = await lpJson('GET', '/jobs?skip=0&limit=50');
    expect(Object.keys(listed)).toEqual(expect.arrayContaining(['jobs', 'total']));
    expect(listed.total).toBeGreaterThanOrEqual(1);
    expect(listed.jobs.map((j: any) => j.job_id)).toContain(jobId);
    expect(
      (await lpJson('GET', '/jobs?status=ready_for_review')).jobs.every((j: any) => j.status === 'ready_for_review'),
    ).toBe(true);

    // The OpenAPI document declares the arrays and their paging headers.
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    for (const path of ['/jobs/{job_id}/blocks', '/jobs/{job_id}/chunks', '/jobs/{job_id}/audit']) {
      const ok = doc.paths[path].get.responses['200'];
      expect(ok.content['application/json'].schema.type, path).toBe('array');
      expect(Object.keys(ok.headers).sort(), path).toEqual(['Link', 'X-Total-Count']);
    }
    expect(Object.keys(doc.paths['/jobs'].get.responses['200'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['jobs', 'total']),
    );
  });

  it("reads the reviewer's text and type as `text` and `type`, the machine's in original_*, before and after an undo, and in the export", async () => {
    const { jobId } = await uploadAndWait('effective.md', DOC);
    const blocks = await lpJson('GET', `/jobs/${jobId}/blocks`);
    const owls = blocks.find((b: any) => b.text.startsWith('Owls'));
    const res = await lp(
      'PATCH',
      `/jobs/${jobId}/blocks/${owls.block_id}`,
      blockUpdate(owls.version, 'edited', { edited_text: 'Owls hunt at dusk.', edited_type: 'heading' }),
    );
    expect(res.status).toBe(200);
    const patched = await res.json();
    const expected = {
      text: 'Owls hunt at dusk.',
      type: 'heading',
      original_text: owls.text,
      original_type: 'paragraph',
      edited_text: 'Owls hunt at dusk.',
      edited_type: 'heading',
      review_status: 'edited',
    };
    expect(patched).toMatchObject(expected);
    // A reload reads the same.
    const reread = (await lpJson('GET', `/jobs/${jobId}/blocks`)).find((b: any) => b.block_id === owls.block_id);
    expect(reread).toMatchObject(expected);

    const [chunk] = await lpJson('GET', `/jobs/${jobId}/chunks?limit=1`);
    const chunkRes = await lp('PATCH', `/jobs/${jobId}/chunks/${chunk.chunk_id}`, {
      status: 'edited',
      edited_text: 'A chunk, reworded.',
      reviewer_note: '',
      version: chunk.version,
    });
    expect(chunkRes.status).toBe(200);
    expect(await chunkRes.json()).toMatchObject({
      text: 'A chunk, reworded.',
      original_text: chunk.text,
      edited_text: 'A chunk, reworded.',
      review_status: 'edited',
    });
    expect((await lpJson('GET', `/jobs/${jobId}/chunks?limit=1`))[0]).toMatchObject({
      text: 'A chunk, reworded.',
      original_text: chunk.text,
    });

    // Lectern's undo takes the edit back: text and type read as extracted again.
    const undone = await lp('POST', `/jobs/${jobId}/blocks/undo`, {
      items: [{ block_id: owls.block_id, version: patched.version, revision_id: patched.current_revision_id }],
    });
    expect(undone.status).toBe(200);
    const back = (await lpJson('GET', `/jobs/${jobId}/blocks`)).find((b: any) => b.block_id === owls.block_id);
    expect(back).toMatchObject({
      text: owls.text,
      type: 'paragraph',
      original_text: owls.text,
      edited_text: null,
      edited_type: null,
      review_status: 'pending',
    });

    // Edited again, finalized: the export's blocks carry the reviewer's text as `text`.
    const again = await lpJson(
      'PATCH',
      `/jobs/${jobId}/blocks/${owls.block_id}`,
      blockUpdate(back.version, 'edited', { edited_text: 'Owls hunt at dusk.' }),
    );
    expect(again.text).toBe('Owls hunt at dusk.');
    expect((await lp('POST', `/jobs/${jobId}/finalize`, { finalize_policy: 'approve_pending' })).status).toBe(200);
    const files = unzipSync(new Uint8Array(await (await lp('GET', `/jobs/${jobId}/export`)).arrayBuffer()));
    const exported = JSON.parse(strFromU8(files['blocks.json']!));
    expect(exported.find((b: any) => b.block_id === owls.block_id)).toMatchObject({
      text: 'Owls hunt at dusk.',
      original_text: owls.text,
    });
    expect(strFromU8(files['document.md']!)).toContain('Owls hunt at dusk.');
    expect(strFromU8(files['document.md']!)).not.toContain(owls.text);
  });

  it("gets LongParser's answers from upload, rechunk and finalize, and blocks.json and chunks.json in the export", async () => {
    const bytes = enc(DOC);
    const { created, jobId } = await uploadAndWait('answers.md', DOC);
    expect(created).toMatchObject({
      job_id: expect.any(String),
      tenant_id: expect.any(String),
      source_file: 'answers.md',
      file_hash: createHash('sha256').update(bytes).digest('hex'),
      total_pages: expect.any(Number),
      total_blocks: expect.any(Number),
      total_chunks: expect.any(Number),
      review_progress: { approved: 0, edited: 0, rejected: 0, pending: 0 },
      finalized_at: null,
      error: null,
    });
    expect(['queued', 'processing']).toContain(created.status);
    expect(Number.isNaN(Date.parse(created.created_at))).toBe(false);

    const blocks = await lpJson('GET', `/jobs/${jobId}/blocks`);
    const wrens = blocks.find((b: any) => b.text.startsWith('Wrens'));
    // indent_level is LongParser's integer, 0 at the top level.
    expect(blocks.map((b: any) => b.indent_level)).toEqual(blocks.map(() => 0));
    await lp('PATCH', `/jobs/${jobId}/blocks/${wrens.block_id}`, blockUpdate(wrens.version, 'rejected'));
    // JobResponse's review_progress counts the blocks, on the job and on each item of the job list.
    const progress = { approved: 0, edited: 0, rejected: 1, pending: blocks.length - 1 };
    expect((await lpJson('GET', `/jobs/${jobId}`)).review_progress).toEqual(progress);
    const listed = (await lpJson('GET', '/jobs?limit=500')).jobs;
    expect(listed.find((j: any) => j.job_id === jobId).review_progress).toEqual(progress);
    expect(
      listed.every((j: any) =>
        ['approved', 'edited', 'rejected', 'pending'].every((k) => Number.isInteger(j.review_progress[k])),
      ),
    ).toBe(true);
    const rechunked = await lp('POST', `/jobs/${jobId}/rechunk`);
    expect(rechunked.status).toBe(200);
    const r = await rechunked.json();
    expect(r).toMatchObject({ status: 'rechunked', total_chunks: expect.any(Number) });
    expect(r.total_chunks).toBe((await lpJson('GET', `/jobs/${jobId}`)).total_chunks);

    const fin = await lp('POST', `/jobs/${jobId}/finalize`, { finalize_policy: 'approve_pending' });
    expect(fin.status).toBe(200);
    expect(await fin.json()).toMatchObject({ status: 'finalized', job_id: jobId, policy: 'approve_pending' });

    const zip = await lp('GET', `/jobs/${jobId}/export`);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const exportedBlocks = JSON.parse(strFromU8(files['blocks.json']!));
    const exportedChunks = JSON.parse(strFromU8(files['chunks.json']!));
    expect(Array.isArray(exportedBlocks) && Array.isArray(exportedChunks)).toBe(true);
    // The rejected block stays out (LongParser's export keeps it: a defect not copied).
    expect(exportedBlocks.map((b: any) => b.block_id)).toEqual(
      blocks.filter((b: any) => b.block_id !== wrens.block_id).map((b: any) => b.block_id),
    );
    expect(exportedBlocks[0]).toMatchObject({
      block_id: blocks[0].block_id,
      type: 'heading',
      text: 'Field guide',
      page_number: expect.any(Number),
    });
    expect(exportedChunks.length).toBe(r.total_chunks);
    expect(
      exportedChunks.every(
        (c: any) => typeof c.chunk_id === 'string' && Array.isArray(c.block_ids) && !c.text.includes('Wrens'),
      ),
    ).toBe(true);
    // Indented as LongParser's json.dumps(..., indent=2) writes them.
    expect(strFromU8(files['blocks.json']!)).toMatch(/^\[\n {2}\{\n {4}"block_id"/);
    // Listed in the manifest with their hashes, like every file.
    const manifest = JSON.parse(strFromU8(files['manifest.json']!));
    const hashOf = Object.fromEntries(manifest.files.map((f: any) => [f.name, f.sha256]));
    expect(hashOf['blocks.json']).toBe(createHash('sha256').update(files['blocks.json']!).digest('hex'));
    expect(hashOf['chunks.json']).toBe(createHash('sha256').update(files['chunks.json']!).digest('hex'));
  });

  it("reads every error's message from `detail`, beside Lectern's coded `error`", async () => {
    const { jobId } = await uploadAndWait('errors.md', DOC);
    const cases: [Response, number, string][] = [
      [await lp('GET', '/jobs/no-such-job'), 404, 'JOB_NOT_FOUND'],
      [await lp('GET', `/jobs/${jobId}/blocks?limit=501`), 400, 'VALIDATION_FAILED'],
      [
        await lp('PATCH', `/jobs/${jobId}/blocks/b1`, { ...blockUpdate(1, 'approved'), status: 'done' }),
        400,
        'VALIDATION_FAILED',
      ],
      [await fetch(`${server.url}/jobs`, { headers: { 'X-API-Key': 'wrong-key-of-many-chars' } }), 401, 'UNAUTHORIZED'],
      [await lp('GET', '/no-such-route'), 404, 'NOT_FOUND'],
    ];
    await lp('PATCH', `/jobs/${jobId}/blocks/b1`, blockUpdate(1, 'approved'));
    cases.push([await lp('PATCH', `/jobs/${jobId}/blocks/b1`, blockUpdate(1, 'rejected')), 409, 'VERSION_CONFLICT']);
    for (const [res, status, code] of cases) {
      expect(res.status).toBe(status);
      const body = await res.json();
      expect(typeof body.detail).toBe('string');
      expect(body.detail.length).toBeGreaterThan(0);
      expect(body.detail).toBe(body.error.message);
      expect(body.error.code).toBe(code);
    }
    // The OpenAPI error schema says so.
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(doc.components.schemas.ErrorBody.properties.detail).toMatchObject({ type: 'string' });
  });

  it("finds audit actions in LongParser's words: the review status each change left", async () => {
    const { jobId } = await uploadAndWait('audit.md', DOC);
    const blocks = await lpJson('GET', `/jobs/${jobId}/blocks`);
    const [a, b, c, d] = blocks;
    await lp(
      'PATCH',
      `/jobs/${jobId}/blocks/${a.block_id}`,
      blockUpdate(a.version, 'approved', { reviewer_note: 'fine' }),
    );
    await lp(
      'PATCH',
      `/jobs/${jobId}/blocks/${b.block_id}`,
      blockUpdate(b.version, 'edited', { edited_text: 'Owls see in the dark.' }),
    );
    const rejected = await lpJson('PATCH', `/jobs/${jobId}/blocks/${c.block_id}`, blockUpdate(c.version, 'rejected'));
    const [chunk] = await lpJson('GET', `/jobs/${jobId}/chunks?limit=1`);
    await lp('PATCH', `/jobs/${jobId}/chunks/${chunk.chunk_id}`, {
      status: 'approved',
      edited_text: null,
      reviewer_note: '',
      version: chunk.version,
    });
    // Back to pending (Lectern's reset): named by the status it leaves.
    await lp('PATCH', `/jobs/${jobId}/blocks/${c.block_id}`, blockUpdate(rejected.version, 'pending'));

    const trail = await lpJson('GET', `/jobs/${jobId}/audit`);
    const actionOf = (id: string) => trail.filter((r: any) => r.entity_id === id).map((r: any) => r.action);
    expect(actionOf(a.block_id)).toEqual(['approved']);
    expect(actionOf(b.block_id)).toEqual(['edited']);
    expect(actionOf(c.block_id)).toEqual(['pending', 'rejected']);
    expect(actionOf(chunk.chunk_id)).toEqual(['approved']);
    // LongParser's Revision fields.
    const rev = trail.find((r: any) => r.entity_id === b.block_id);
    expect(rev).toMatchObject({
      entity_type: 'block',
      original_text: b.text,
      edited_text: 'Owls see in the dark.',
      reviewer_id: expect.any(String),
      reviewer_note: '',
    });
    for (const key of ['revision_id', 'previous_revision_id', 'edited_type', 'timestamp'])
      expect(rev).toHaveProperty(key);
    // Filtering by action takes LongParser's words (and Lectern's earlier ones).
    expect((await lpJson('GET', `/jobs/${jobId}/audit?action=approved`)).map((r: any) => r.entity_id).sort()).toEqual(
      [a.block_id, chunk.chunk_id].sort(),
    );
    expect((await lpJson('GET', `/jobs/${jobId}/audit?action=approve`)).length).toBe(2);

    // Lectern's own actions keep their names; finalize's settling is told apart from a person's approval.
    const undo = await lp('POST', `/jobs/${jobId}/blocks/undo`, {
      items: [
        {
          block_id: a.block_id,
          version: a.version + 1,
          revision_id: trail.find((r: any) => r.entity_id === a.block_id).revision_id,
        },
      ],
    });
    expect(undo.status).toBe(200);
    await lp('POST', `/jobs/${jobId}/finalize`, { finalize_policy: 'approve_pending' });
    const after = await lpJson('GET', `/jobs/${jobId}/audit?limit=500`);
    expect(after.find((r: any) => r.entity_id === a.block_id).action).toBe('auto_approved');
    expect(after.filter((r: any) => r.entity_id === a.block_id).map((r: any) => r.action)).toEqual([
      'auto_approved',
      'undo',
      'approved',
    ]);
    expect(after.find((r: any) => r.entity_id === d.block_id).action).toBe('auto_approved');
    expect(after.find((r: any) => r.entity_type === 'job').action).toBe('finalize');
    const words = new Set(after.map((r: any) => r.action));
    expect(
      [...words].every((w) =>
        [
          'approved',
          'edited',
          'rejected',
          'pending',
          'auto_approved',
          'auto_rejected',
          'undo',
          'rechunk',
          'finalize',
        ].includes(w as string),
      ),
    ).toBe(true);
  });
});

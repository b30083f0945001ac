import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractPdf } from '../../server/core/extract/pdf/index.js';
import { enc, ingest, json, listAll, startServer } from '../helpers/app.js';
import { makeDocx } from '../helpers/make-docx.js';
import { makeBlankPagePdf, makeLongPdf, makeStructuredPdf, STRUCTURED_PDF } from '../helpers/make-pdf.js';
import { storeCount } from '../helpers/server-db.js';
import { sseRequest, type SseEvent } from '../helpers/sse.js';
import { filesInBucket, storedKeys } from '../helpers/stored-files.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer(() => startServer({ settings: { max_upload_bytes: 2 * 1024 * 1024 } }));

describe('upload', () => {
  it('answers 201 with the job, then processes it to ready_for_review with per-page progress', async () => {
    const pdf = await makeStructuredPdf();
    const res = await server.upload('report.pdf', pdf);
    expect(res.status).toBe(201);
    const created = (await res.json()) as Record<string, any>;
    expect(created).toMatchObject({
      status: 'queued',
      source_file: 'report.pdf',
      format: 'pdf',
      size_bytes: pdf.length,
    });
    expect(created.file_hash).toMatch(/^[0-9a-f]{64}$/);
    const job = await server.waitFor(created.job_id);
    expect(job.status).toBe('ready_for_review');
    expect(job.total_pages).toBe(STRUCTURED_PDF.pageCount);
    expect(job.progress).toEqual({ pages_done: STRUCTURED_PDF.pageCount, total_pages: STRUCTURED_PDF.pageCount });
    expect(job.total_blocks).toBeGreaterThan(10);
    expect(job.total_chunks).toBeGreaterThan(0);
    expect(job.review.blocks.pending).toBe(job.total_blocks);

    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks).toHaveLength(job.total_blocks);
    const types = new Set(blocks.map((b) => b.type));
    for (const t of ['heading', 'paragraph', 'list_item', 'table', 'header', 'footer', 'code'])
      expect(types, t).toContain(t);
    const headings = blocks.filter((b) => b.type === 'heading').map((b) => b.text);
    for (const h of STRUCTURED_PDF.headings) expect(headings).toContain(h.text);
    expect(blocks.map((b) => b.text).join(' ')).toContain(STRUCTURED_PDF.hyphenation.word);
    for (const b of blocks) {
      expect(b.version).toBe(1);
      expect(b.status).toBe('pending');
      expect(b.bbox.x1).toBeGreaterThan(b.bbox.x0);
    }

    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks).toHaveLength(job.total_chunks);
    expect(chunks.some((c) => c.chunk_type === 'table')).toBe(true);
    for (const c of chunks) {
      expect(c.block_ids.length).toBeGreaterThan(0);
      expect(c.page_numbers.length).toBeGreaterThan(0);
      expect(c.token_count).toBeGreaterThan(0);
    }
  });

  it('shares a PDF among the idle worker threads and assembles the same blocks as one thread', async () => {
    const pdf = await makeLongPdf(90);
    const job = await ingest(server, 'long.pdf', pdf);
    expect(job.progress).toEqual({ pages_done: 90, total_pages: 90 });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const alone = await extractPdf(new Uint8Array(pdf));
    expect(blocks.map((b) => [b.page, b.type, b.text])).toEqual(alone.blocks.map((b) => [b.page, b.type, b.text]));
  });

  it('reads Markdown, HTML and plain text by their content', async () => {
    const md = await ingest(
      server,
      'notes.md',
      enc('# Title\n\nSome text here.\n\n## Part\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n'),
    );
    expect(md.format).toBe('markdown');
    const mdBlocks = await listAll(server, `/jobs/${md.job_id}/blocks`);
    expect(mdBlocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'heading', 'list_item', 'list_item', 'table']);
    const html = await ingest(
      server,
      'page.txt',
      enc('<!doctype html><html><body><h1>Hello</h1><p>World of text.</p><ul><li>x</li></ul></body></html>'),
    );
    expect(html.format).toBe('html');
    const txt = await ingest(server, 'plain', enc('Just a paragraph of plain text.\n\nAnd a second one.'));
    expect(txt.format).toBe('text');
    expect(txt.total_blocks).toBe(2);
  });

  it('reads a DOCX with its headings, lists and table', async () => {
    const docx = makeDocx([
      { kind: 'heading', level: 1, text: 'Quarterly memo' },
      { kind: 'para', text: 'Numbers for the quarter follow.' },
      { kind: 'bullet', text: 'revenue up' },
      { kind: 'bullet', text: 'costs flat', level: 1 },
      {
        kind: 'table',
        rows: [
          ['Item', 'Value'],
          ['A', '1'],
          ['B', '2'],
        ],
        headerRows: 1,
      },
    ]);
    const job = await ingest(server, 'memo.bin', docx);
    expect(job.format).toBe('docx');
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list_item', 'list_item', 'table']);
    expect(blocks[3]!.indent_level).toBe(1);
    expect(blocks[4]!.table).toEqual({
      rows: [
        ['Item', 'Value'],
        ['A', '1'],
        ['B', '2'],
      ],
      header_rows: 1,
    });
    const corrupt = await server.upload('broken.docx', docx.slice(0, 400));
    expect(corrupt.status).toBe(415);
  });

  it('marks a page without text as needing OCR instead of leaving it silently empty', async () => {
    const job = await ingest(server, 'blank.pdf', await makeBlankPagePdf());
    expect(job.total_pages).toBe(2);
    expect(job.pages_needing_ocr).toEqual([2]);
  });

  it('refuses a file whose content is no supported document with 415', async () => {
    // An executable (ELF header then binary): neither a document nor an image Lectern reads.
    const elf = new Uint8Array([
      0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0, 1, 0, 0, 0, 0xff, 0xfe,
    ]);
    const res = await server.upload('photo.pdf', elf);
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses an upload over the size limit with 413 and keeps nothing of it', async () => {
    const res = await server.upload('big.txt', new Uint8Array(3 * 1024 * 1024).fill(65));
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe('FILE_TOO_LARGE');
    expect(readdirSync(join(server.dataDir, 'tmp'))).toEqual([]);
  });

  it('answers 400 without a file and for bad chunking fields', async () => {
    const res = await server.call('POST', '/jobs', { json: { hello: 1 } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('FILE_REQUIRED');
    const bad = await server.upload('a.txt', enc('text'), { chunk_size: 'big' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe('VALIDATION_FAILED');
  });

  it('ends a malformed PDF as a failed job with a reason, and the server keeps working', async () => {
    const broken = enc('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ngarbage garbage\n%%EOF');
    const res = await server.upload('broken.pdf', broken);
    expect(res.status).toBe(201);
    const job = await server.waitFor(((await res.json()) as any).job_id);
    expect(job.status).toBe('failed');
    expect(job.error.code).toMatch(/^PDF_/);
    expect(job.error.message.length).toBeGreaterThan(5);
    expect((await server.call('GET', '/health')).status).toBe(200);
  });
});

describe('jobs', () => {
  it('lists with a status filter and paging', async () => {
    const all = (await (await server.call('GET', '/jobs?limit=500')).json()) as any;
    expect(all.total).toBeGreaterThanOrEqual(5);
    const failed = (await (await server.call('GET', '/jobs?status=failed')).json()) as any;
    expect(failed.jobs.every((j: any) => j.status === 'failed')).toBe(true);
    expect(failed.total).toBeGreaterThanOrEqual(1);
    const page = (await (await server.call('GET', '/jobs?skip=1&limit=2')).json()) as any;
    expect(page.jobs).toHaveLength(2);
    expect(page.jobs[0].job_id).toBe(all.jobs[1].job_id);
    expect((await server.call('GET', '/jobs?limit=501')).status).toBe(400);
    const several = (await (await server.call('GET', '/jobs?status=failed,ready_for_review&limit=500')).json()) as any;
    expect(several.total).toBe(all.jobs.filter((j: any) => ['failed', 'ready_for_review'].includes(j.status)).length);
    const bad = await server.call('GET', '/jobs?status=done');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.details.allowed).toContain('ready_for_review');
  });

  it('answers 404 JOB_NOT_FOUND for an unknown job on every job route', async () => {
    for (const [m, p] of [
      ['GET', ''],
      ['GET', '/events'],
      ['DELETE', ''],
      ['POST', '/cancel'],
      ['GET', '/blocks'],
      ['GET', '/chunks'],
      ['POST', '/rechunk'],
      ['POST', '/finalize'],
      ['GET', '/export'],
      ['GET', '/audit'],
    ] as const) {
      const res = await server.call(m, `/jobs/nope${p}`);
      expect(res.status, `${m} ${p}`).toBe(404);
      expect(((await res.json()) as any).error.code).toBe('JOB_NOT_FOUND');
    }
  });

  it('deletes a job with its rows and files (204)', async () => {
    const job = await ingest(server, 'gone.md', enc('# Gone\n\nsoon'));
    expect(await storedKeys(server.dataDir, `files/${job.job_id}`)).toEqual([`files/${job.job_id}/original.md`]);
    const res = await server.call('DELETE', `/jobs/${job.job_id}`);
    expect(res.status).toBe(204);
    expect(await storedKeys(server.dataDir, `files/${job.job_id}`)).toEqual([]);
    if (!filesInBucket(server.dataDir)) expect(existsSync(join(server.dataDir, 'files', job.job_id))).toBe(false);
    expect((await server.call('GET', `/jobs/${job.job_id}`)).status).toBe(404);
    for (const table of ['blocks', 'chunks', 'pages', 'revisions']) {
      expect(
        await storeCount(server.dataDir, `SELECT COUNT(*) AS n FROM ${table} WHERE job_id = ?`, [job.job_id]),
        table,
      ).toBe(0);
    }
  });
});

describe('job events', () => {
  const follow = (jobId: string, stopAfter?: (e: SseEvent) => boolean) =>
    sseRequest(`${server.url}/jobs/${jobId}/events`, { headers: { 'x-api-key': server.key } }, stopAfter);

  it('streams the job from upload to ready_for_review as it changes, then ends', async () => {
    const created = await json(await server.upload('followed.pdf', await makeLongPdf(120)));
    const { res, events } = await follow(created.job_id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.map((e) => e.event)).toEqual(events.map(() => 'job'));
    const statuses = events.map((e) => e.data.status).filter((s, i, all) => s !== all[i - 1]);
    expect(['queued,processing,ready_for_review', 'processing,ready_for_review']).toContain(statuses.join());
    const done = events.map((e) => e.data.progress?.pages_done ?? 0);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(
      done.some((d) => d > 0 && d < 120),
      `progress between the ends: ${done.join()}`,
    ).toBe(true);
    // Each event differs from the one before it: changes only.
    for (let i = 1; i < events.length; i++) expect(events[i]?.data).not.toEqual(events[i - 1]?.data);
    const last = events.at(-1)?.data;
    expect(last).toEqual(await json(await server.call('GET', `/jobs/${created.job_id}`)));
    expect(last).toMatchObject({ status: 'ready_for_review', progress: { pages_done: 120, total_pages: 120 } });
  });

  it('sends a job with no work running once and ends', async () => {
    const job = await ingest(server, 'still.md', enc('# Still\n\nnothing runs'));
    const { res, events } = await follow(job.job_id);
    expect(res.status).toBe(200);
    expect(events.map((e) => [e.event, e.data.status])).toEqual([['job', 'ready_for_review']]);
  });

  it('ends with the cancelled job when it is cancelled, and with an error event when it is deleted', async () => {
    for (const [action, ending] of [
      ['cancel', 'cancelled'],
      ['delete', 'JOB_NOT_FOUND'],
    ] as const) {
      const created = await json(await server.upload(`${action}.pdf`, await makeLongPdf(500)));
      let acted = false;
      const { events } = await follow(created.job_id, (e) => {
        if (!acted && (e.data.progress?.pages_done ?? 0) > 0) {
          acted = true;
          void server.call(
            action === 'cancel' ? 'POST' : 'DELETE',
            action === 'cancel' ? `/jobs/${created.job_id}/cancel` : `/jobs/${created.job_id}`,
          );
        }
        return false;
      });
      expect(acted, action).toBe(true);
      const last = events.at(-1);
      if (action === 'cancel') expect(last).toMatchObject({ event: 'job', data: { status: 'cancelled' } });
      else expect(last).toMatchObject({ event: 'error', data: { code: ending } });
    }
  });
});

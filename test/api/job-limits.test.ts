/**
 * Every document limit is a setting that reaches the worker threads, and crossing it fails the job with its
 * code while the server goes on: small documents against small limits, through the real server and pool.
 * (The hostile files against the default limits, with the process's memory measured, are in
 * hostile-files.test.ts and hostile-operators.test.ts.)
 */
import { createCanvas } from '@napi-rs/canvas';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../server/config/load-settings.js';
import { ingest, json, startServer, tempDir, waitForProgress, type TestServer } from '../helpers/app.js';
import { makeDocx } from '../helpers/make-docx.js';
import { makeLongPdf, makePagesPdf, PAPER } from '../helpers/make-pdf.js';
import { greyTiff } from '../helpers/make-scan.js';
import type { Settings } from '../../server/schemas/settings.js';
import { storeRows } from '../helpers/server-db.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serverWith(settings: Partial<Settings>): Promise<TestServer> {
  const server = await startServer({ settings: { workers: 1, ...settings } });
  servers.push(server);
  return server;
}

/** Uploads and waits; the job must fail with `code`. */
async function expectFailure(
  server: TestServer,
  name: string,
  data: Uint8Array,
  code: string,
): Promise<Record<string, any>> {
  const res = await server.upload(name, data);
  expect(res.status).toBe(201);
  const job = await server.waitFor((await json(res)).job_id);
  expect(job.status, JSON.stringify(job)).toBe('failed');
  expect(job.error.code).toBe(code);
  return job;
}

let fivePages: Buffer;
beforeAll(async () => {
  fivePages = await makePagesPdf(
    Array.from({ length: 5 }, (_, i) => ({ size: PAPER.a4, title: `Page ${i + 1} of five` })),
  );
});

describe('document limits', () => {
  it('max_pages: a PDF or TIFF with more pages fails with TOO_MANY_PAGES', async () => {
    const server = await serverWith({ max_pages: 3 });
    const job = await expectFailure(server, 'five.pdf', fivePages, 'TOO_MANY_PAGES');
    expect(job.error.message).toMatch(/5 pages, more than the limit of 3 \(setting max_pages\)/);
    const page = { width: 40, height: 40, data: new Uint8Array(1600).fill(255), dpi: 300 };
    await expectFailure(server, 'four.tiff', greyTiff([page, page, page, page]), 'TOO_MANY_PAGES');
    expect((await ingest(server, 'ok.md', new TextEncoder().encode('# Fine\n\nShort.'))).status).toBe(
      'ready_for_review',
    );
  });

  it('max_image_pixels: an image with more pixels fails with IMAGE_TOO_LARGE before it is decoded', async () => {
    const server = await serverWith({ max_image_pixels: 100 * 100 });
    const canvas = createCanvas(200, 100);
    canvas.getContext('2d').fillRect(0, 0, 10, 10);
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const job = await expectFailure(server, `wide.${format}`, canvas.encodeSync(format as 'png'), 'IMAGE_TOO_LARGE');
      expect(job.error.message).toMatch(/200 x 100 pixels/);
    }
  });

  it('max_decompressed_bytes: a document inflating to more in all fails with DECOMPRESSED_TOO_LARGE', async () => {
    // A few KB: the PDF's fonts and content streams, and the DOCX's parts, are each far below the part limit.
    const server = await serverWith({ max_decompressed_bytes: 4096 });
    const pdf = await expectFailure(server, 'five.pdf', fivePages, 'DECOMPRESSED_TOO_LARGE');
    expect(pdf.error.message).toMatch(/in all \(setting max_decompressed_bytes\)/);
    const docx = makeDocx([
      { kind: 'title', text: 'Report' },
      ...Array.from({ length: 40 }, (_, i) => ({ kind: 'para' as const, text: `Paragraph ${i} of the report.` })),
    ]);
    await expectFailure(server, 'report.docx', docx, 'DECOMPRESSED_TOO_LARGE');
  });

  it('max_decompressed_part_bytes: one stream inflating to more fails the PDF', async () => {
    const server = await serverWith({ max_decompressed_part_bytes: 256 });
    const job = await expectFailure(server, 'five.pdf', fivePages, 'DECOMPRESSED_TOO_LARGE');
    expect(job.error.message).toMatch(/more than 256 bytes \(setting max_decompressed_part_bytes\)/);
  });

  it('max_job_seconds: a job running longer fails with JOB_TIMEOUT and frees its worker', async () => {
    // The limit must stay well above what a small document takes on a loaded machine (the one read after
    // it is under the same limit, on a thread started afresh), and the long one well above the limit: one
    // quiet thread reads these pages at 1-2 ms each, so 4,500 take two to three times the limit.
    const server = await serverWith({ max_job_seconds: 3 });
    const long = await makeLongPdf(4500);
    const started = Date.now();
    const job = await expectFailure(server, 'long.pdf', long, 'JOB_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(job.error.message).toMatch(/longer than 3 s \(setting max_job_seconds\)/);
    // One worker thread: the next document can only be read once the timed-out task has really stopped.
    expect(
      (await ingest(server, 'next.md', new TextEncoder().encode('# Next\n\nRead after the timeout.'))).status,
    ).toBe('ready_for_review');
  });

  it('counts attempts, but not one a graceful stop interrupted', async () => {
    const dataDir = tempDir();
    const attempts = async (jobId: string) =>
      (await storeRows<{ attempts: number }>(dataDir, 'SELECT attempts FROM jobs WHERE job_id = ?', [jobId]))[0]
        ?.attempts;
    const first = await startServer({ dataDir, settings: { workers: 1 } });
    const jobId = (await json(await first.upload('long.pdf', await makeLongPdf(300)))).job_id as string;
    // Stopped part-way through the job: a stop before it started would interrupt nothing.
    await waitForProgress(first, jobId);
    await first.close();
    expect(await attempts(jobId)).toBe(0);
    const second = await startServer({ dataDir, key: first.key, settings: { workers: 1 } });
    servers.push(second);
    expect((await second.waitFor(jobId, undefined, 180_000)).status).toBe('ready_for_review');
    expect(await attempts(jobId)).toBe(1);
  });

  it('reads every limit from the environment', () => {
    const env = {
      LECTERN_MAX_DECOMPRESSED_BYTES: '1000000',
      LECTERN_MAX_DECOMPRESSED_PART_BYTES: '1000',
      LECTERN_MAX_IMAGE_PIXELS: '2000',
      LECTERN_MAX_PAGE_PIXELS: '3000',
      LECTERN_MAX_PAGES: '4',
      LECTERN_MAX_JOB_SECONDS: '5',
      LECTERN_WORKER_HEAP_MB: '600',
    };
    expect(loadSettings({ env, cwd: tempDir() })).toMatchObject({
      max_decompressed_bytes: 1_000_000,
      max_decompressed_part_bytes: 1000,
      max_image_pixels: 2000,
      max_page_pixels: 3000,
      max_pages: 4,
      max_job_seconds: 5,
      worker_heap_mb: 600,
    });
    expect(loadSettings({ env: {}, cwd: tempDir() })).toMatchObject({
      max_decompressed_bytes: 4 * 1024 ** 3,
      max_decompressed_part_bytes: 128 * 1024 ** 2,
      max_image_pixels: 30_000_000,
      max_page_pixels: 30_000_000,
      max_pages: 10_000,
      max_job_seconds: 3600,
      worker_heap_mb: 512,
    });
  });
});

/**
 * Page geometry through the HTTP API with the real server: GET /jobs/{id}/pages and the job's page_size
 * for Letter and A4 pages, pages turned by /Rotate (90, 180, 270), an image upload, paging and the errors.
 * The sizes must be those of the space block boxes and page images are in, or the desk draws boxes askew.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, ingest, json, listAll, startServer, type TestServer } from '../helpers/app.js';
import { filesInBucket, removeStored, storedKeys, writeStored } from '../helpers/stored-files.js';
import { makePagesPdf, PAPER, type PageSpec } from '../helpers/make-pdf.js';
import { makeScan } from '../helpers/make-scan.js';

const [LW, LH] = PAPER.letter;
const [AW, AH] = PAPER.a4;
const SPECS: PageSpec[] = [
  { size: PAPER.letter, title: 'Letter page' },
  { size: PAPER.a4, title: 'A4 page' },
  { size: PAPER.a4, rotate: 90, title: 'A4 turned 90' },
  { size: PAPER.letter, rotate: 270, title: 'Letter turned 270' },
  { size: PAPER.a4, rotate: 180, title: 'A4 turned 180' },
];
/** Each page as shown: a quarter turn swaps width and height. */
const SHOWN = [
  { page: 1, width: LW, height: LH, rotation: 0 },
  { page: 2, width: AW, height: AH, rotation: 0 },
  { page: 3, width: AH, height: AW, rotation: 90 },
  { page: 4, width: LH, height: LW, rotation: 270 },
  { page: 5, width: AW, height: AH, rotation: 180 },
];

let server: TestServer;
let sized: Record<string, any>;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

async function imageSize(jobId: string, page: number, width: number) {
  const res = await server.call('GET', `/jobs/${jobId}/pages/${page}/image?size=${width}`);
  expect(res.status).toBe(200);
  return pngSize(new Uint8Array(await res.arrayBuffer()));
}

beforeAll(async () => {
  server = await startServer();
  sized = await ingest(server, 'sized.pdf', await makePagesPdf(SPECS));
});
afterAll(async () => server?.close());

describe('GET /jobs/{job_id}/pages', () => {
  it('gives each page its size as shown and its /Rotate, the space its block boxes are in', async () => {
    const pages = await listAll(server, `/jobs/${sized.job_id}/pages`);
    expect(pages.map(({ page, width, height, rotation }) => ({ page, width, height, rotation }))).toEqual(SHOWN);
    for (const p of pages) expect(p).toMatchObject({ needs_ocr: false, ocr: null });
    const blocks = await listAll(server, `/jobs/${sized.job_id}/blocks`);
    for (const { page, width, height } of SHOWN) {
      const on = blocks.filter((b) => b.page === page);
      expect(on.length, `page ${page}`).toBeGreaterThanOrEqual(4);
      // The title sits at the top-left margin of the page as shown, the last paragraph ends at its foot
      // margin: boxes are in the shown page's space whatever the turn.
      const title = on.find((b) => b.text === SPECS[page - 1]?.title);
      expect(title?.bbox.x0, `page ${page} title x`).toBeCloseTo(72, 0);
      expect(title?.bbox.y0, `page ${page} title y`).toBeGreaterThan(70);
      expect(title?.bbox.y0, `page ${page} title y`).toBeLessThan(80);
      const foot = Math.max(...on.map((b) => b.bbox.y1));
      expect(foot, `page ${page} foot`).toBeGreaterThan(height - 80);
      expect(foot, `page ${page} foot`).toBeLessThanOrEqual(height - 72);
      for (const b of on) {
        expect(b.bbox.x0).toBeGreaterThanOrEqual(0);
        expect(b.bbox.x1).toBeLessThanOrEqual(width);
      }
    }
  });

  it('sizes the page image like the page it reports, turned pages included', async () => {
    for (const { page, width, height } of SHOWN) {
      const img = await imageSize(sized.job_id, page, 400);
      expect(img.width).toBe(400);
      expect(Math.abs(img.height - (400 * height) / width), `page ${page}`).toBeLessThanOrEqual(1);
    }
  });

  it('pages with skip and limit, and says how many there are', async () => {
    const res = await server.call('GET', `/jobs/${sized.job_id}/pages?skip=2&limit=2`);
    expect(res.status).toBe(200);
    const list = await json(res);
    expect(list).toMatchObject({ total: 5, skip: 2, limit: 2 });
    expect(list.items.map((p: { page: number }) => p.page)).toEqual([3, 4]);
  });

  it('reports an image upload at its pixels in points at its resolution (300 dpi when it states none), read by OCR', async () => {
    const scan = await makeScan(await makePagesPdf([{ size: PAPER.a4, title: 'Scanned page' }]), 1, { dpi: 100 });
    const job = await ingest(server, 'scan.png', scan.png);
    const pages = await listAll(server, `/jobs/${job.job_id}/pages`);
    expect(pages).toEqual([
      {
        page: 1,
        width: (scan.width * 72) / 300,
        height: (scan.height * 72) / 300,
        rotation: 0,
        needs_ocr: true,
        ocr: { language: 'eng', confidence: expect.any(Number), rotation: 0 },
      },
    ]);
    expect(job.page_size).toEqual({ width: pages[0]?.width, height: pages[0]?.height, pages: 1 });
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks) {
      expect(b.bbox.x1).toBeLessThanOrEqual(pages[0]?.width);
      expect(b.bbox.y1).toBeLessThanOrEqual(pages[0]?.height);
    }
    // The title is 72 pt from the page's top-left corner: at 100 dpi that is 100 px, 24 pt at 300 dpi.
    const title = blocks.find((b) => /Scanned page/.test(b.text));
    expect(title?.bbox.x0).toBeGreaterThan(22);
    expect(title?.bbox.x0).toBeLessThan(26);
    const img = await imageSize(job.job_id, 1, 400);
    expect(Math.abs(img.height - (400 * scan.height) / scan.width)).toBeLessThanOrEqual(1);
  });

  it('answers 404 JOB_NOT_FOUND, 409 INVALID_STATE for a document without pages, 400 for a bad limit, 401 without the key', async () => {
    const missing = await server.call('GET', '/jobs/no-such-job/pages');
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('JOB_NOT_FOUND');
    const md = await ingest(server, 'notes.md', enc('# Notes\n\nA document without pages.\n'));
    expect(md.page_size).toBeNull();
    const flow = await server.call('GET', `/jobs/${md.job_id}/pages`);
    expect(flow.status).toBe(409);
    expect((await json(flow)).error).toMatchObject({ code: 'INVALID_STATE', details: { format: 'markdown' } });
    const bad = await server.call('GET', `/jobs/${sized.job_id}/pages?limit=501`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('VALIDATION_FAILED');
    const anonymous = await fetch(`${server.url}/jobs/${sized.job_id}/pages`);
    expect(anonymous.status).toBe(401);
    expect((await json(anonymous)).error.code).toBe('UNAUTHORIZED');
  });
});

describe('the job', () => {
  it('carries the most common page size and how many pages have it, not every page', async () => {
    // Pages 2 and 5 are A4 upright as shown; 3 is A4 turned to landscape, 1 and 4 Letter in two turns.
    expect(sized.page_size).toEqual({ width: AW, height: AH, pages: 2 });
    const letter = await ingest(
      server,
      'letter.pdf',
      await makePagesPdf([
        { size: PAPER.letter, title: 'One' },
        { size: PAPER.letter, title: 'Two' },
      ]),
    );
    expect(letter.page_size).toEqual({ width: LW, height: LH, pages: 2 });
    expect(letter.page_size.pages).toBe(letter.total_pages);
    const listed = await json(await server.call('GET', `/jobs?limit=500`));
    expect(listed.jobs.find((j: { job_id: string }) => j.job_id === letter.job_id).page_size).toEqual(letter.page_size);
  });

  it('is documented in the OpenAPI with the pages listing and its errors', async () => {
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, any>;
    const op = spec.paths['/jobs/{job_id}/pages']?.get;
    // Its own answers; the ones every route may give (403, 421, 429…) are declared by the plugins that give them.
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '409', '421']));
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['job_id', 'skip', 'limit']),
    );
    const item = op.responses['200'].content['application/json'].schema.properties.items.items;
    expect(Object.keys(item.properties)).toEqual(['page', 'width', 'height', 'rotation', 'needs_ocr', 'ocr']);
    expect(Object.keys(spec.components.schemas.Job.properties)).toContain('page_size');
  });

  it("answers a failed job's page image with 409 and a stored document that cannot be read with 422 and its reason, never a 500", async () => {
    // The fuzzer's find: an upload that failed to read, then its page image asked for (was 500 INTERNAL).
    const res = await server.upload('broken.pdf', enc('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n'));
    const failed = await server.waitFor((await json(res)).job_id, ['failed', 'ready_for_review']);
    expect(failed.status).toBe('failed');
    const refused = await server.call('GET', `/jobs/${failed.job_id}/pages/1/image`);
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'failed' } });

    // A job read well whose stored original was damaged afterwards (a disk, a hand in the data folder).
    const job = await ingest(
      server,
      'damaged.pdf',
      await makePagesPdf([{ size: PAPER.letter, title: 'Soon damaged' }]),
    );
    const original = (await storedKeys(server.dataDir, `files/${job.job_id}`)).find((k) => /\/original\.pdf$/.test(k))!;
    await writeStored(server.dataDir, original, 'not a PDF any more');
    const damaged = await server.call('GET', `/jobs/${job.job_id}/pages/1/image?size=300`);
    expect(damaged.status).toBe(422);
    expect((await json(damaged)).error.code).toBe('PDF_INVALID');
    await removeStored(server.dataDir, original);
    const gone = await server.call('GET', `/jobs/${job.job_id}/pages/1/image?size=400`);
    if (filesInBucket(server.dataDir)) {
      // In a bucket the original is downloaded before the reader sees it: the store says it holds none.
      expect(gone.status).toBe(404);
      expect((await json(gone)).error).toMatchObject({ code: 'OBJECT_NOT_FOUND', details: { key: original } });
    } else {
      // Gone altogether: the reader's reason (no such file) under the route's own code.
      expect(gone.status).toBe(422);
      expect((await json(gone)).error).toMatchObject({ code: 'PAGE_RENDER_FAILED', details: { reason: 'ENOENT' } });
    }
  });
});

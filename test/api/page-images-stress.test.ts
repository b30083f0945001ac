/**
 * Many page images at once, as the review desk asks for them (thumbnails at 160 px, the page at 800-1200 px,
 * zoomed pages up to the largest size allowed), across several documents, against the real server in a
 * process of its own (`lectern serve`), so that a native crash while rendering shows as that process dying.
 * Every answer must be a PNG of the width asked for, or a JSON error with its code and a 4xx status; the
 * process must live through it all and still answer. Before render-page.ts encoded on the worker's own
 * thread, @napi-rs/canvas's asynchronous encode read the pixels of canvases that could already have been
 * collected; with four worker threads and one libuv thread (so encodes wait in its queue) this test saw
 * the server die of SIGSEGV within 3 s of the first requests, in each of three runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, removeDir } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { makePagesPdf, PAPER } from '../helpers/make-pdf.js';
import { makeScan } from '../helpers/make-scan.js';

/** Thumbnail, desk page, zoomed page, the largest size allowed (PageImageQuery's maximum). */
const SIZES = [160, 1200, 3200, 4000];

interface Doc {
  name: string;
  data: Uint8Array;
  jobId?: string;
  pages?: number;
}

interface Ask {
  doc: Doc;
  page: number;
  size: number;
}

function pngWidth(bytes: Uint8Array): number | null {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || !sig.every((b, i) => bytes[i] === b)) return null;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(16);
}

describe('page images under load', () => {
  let server: ChildServer;
  const docs: Doc[] = [];
  let died: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  beforeAll(async () => {
    // Four threads render at once and queue their PNG encodes on one libuv thread: an encode that waits
    // while its canvas is unreferenced is what used to crash (see the top of this file).
    server = await startChildServer({ workers: 4, env: { UV_THREADPOOL_SIZE: '1' } });
    void server.exited.then((e) => {
      died = e;
    });
    for (const name of [
      'amsmath-userguide.pdf',
      'beamer-conference-talk.pdf',
      'booktabs-manual.pdf',
      'zoo-jss-paper.pdf',
    ]) {
      docs.push({ name, data: readFileSync(join(fixturesDir, 'pdfs', name)) });
    }
    docs.push({
      name: 'scan05-beamer-slide4.pdf',
      data: readFileSync(join(fixturesDir, 'scanned', 'scan05-beamer-slide4.pdf')),
    });
    const sized = await makePagesPdf([
      { size: PAPER.a4, title: 'An A4 page' },
      // 2 x 41 inches: at 4000 px wide it would be 80,000 px tall, past max_page_pixels (a 400 answer).
      { size: [144, 2952], title: 'A strip' },
      { size: PAPER.letter, rotate: 90, title: 'A turned letter page' },
    ]);
    docs.push({ name: 'sized.pdf', data: sized });
    docs.push({ name: 'scan.png', data: (await makeScan(sized, 1, { dpi: 100 })).png });
    const jobs = await Promise.all(
      docs.map(async (d) => {
        const res = await server.upload(d.name, d.data);
        expect(res.status).toBe(201);
        return ((await res.json()) as { job_id: string }).job_id;
      }),
    );
    for (const [i, id] of jobs.entries()) {
      const job = await server.waitFor(id, ['ready_for_review', 'failed', 'cancelled'], 240_000);
      expect(job.status, JSON.stringify(job.error)).toBe('ready_for_review');
      const d = docs[i]!;
      d.jobId = id;
      d.pages = ((await (await server.call('GET', `/jobs/${id}/pages?limit=500`)).json()) as { total: number }).total;
    }
  }, 300_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    if (server) removeDir(server.dataDir);
  });

  async function ask({ doc, page, size }: Ask) {
    const res = await server
      .call('GET', `/jobs/${doc.jobId}/pages/${page}/image?size=${size}`)
      .catch((err: unknown) => err as Error);
    if (res instanceof Error) {
      const cause = (res as { cause?: unknown }).cause;
      return {
        what: `${doc.name} page ${page} at ${size} px: no answer (${String(cause ?? res)})`,
        status: 0,
        type: null,
        width: null,
        code: null,
      };
    }
    const body = new Uint8Array(await res.arrayBuffer());
    const what = `${doc.name} page ${page} at ${size} px: ${res.status} ${res.headers.get('content-type')}`;
    if (res.status === 200)
      return { what, status: 200, type: res.headers.get('content-type'), width: pngWidth(body), code: null };
    let code: unknown = null;
    try {
      code = (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: unknown } }).error?.code;
    } catch {
      // not JSON: the assertions below say so
    }
    return {
      what: `${what} ${new TextDecoder().decode(body).slice(0, 300)}`,
      status: res.status,
      type: res.headers.get('content-type'),
      width: null,
      code,
    };
  }

  it('answers every one of many concurrent requests with a PNG of that width or a JSON 4xx, and the process lives', async () => {
    const asks: Ask[] = [];
    for (const doc of docs) {
      for (const size of SIZES) asks.push({ doc, page: 1, size });
      // (Page 2 skips the zoomed size that is not the largest, to keep the test short.)
      if ((doc.pages ?? 1) >= 2) for (const size of [160, 1200, 4000]) asks.push({ doc, page: 2, size });
      // The desk asks for a thumbnail again while the first is still rendering: one render serves both.
      asks.push({ doc, page: 1, size: 160 });
      // Past the last page.
      asks.push({ doc, page: (doc.pages ?? 1) + 1, size: 800 });
    }
    const answers = await Promise.all(asks.map(ask));
    const lost = answers.filter((a) => a.status === 0);
    if (lost.length > 0) {
      // A request without an answer: say whether the process died (and of what) rather than only that a socket closed.
      const alive = await server.call('GET', '/health').then(
        () => true,
        () => false,
      );
      const end = alive ? null : await server.exited;
      expect.fail(
        `${lost.length} of ${asks.length} requests got no answer; the server ${end ? `died (${end.signal ?? `exit code ${end.code}`})` : 'still answers'}: ${lost[0]!.what}`,
      );
    }
    expect(died, 'the server process died while rendering').toBeNull();
    for (const a of answers) {
      if (a.status === 200) {
        expect(a.type, a.what).toBe('image/png');
        expect(a.width, a.what).not.toBeNull();
      } else {
        expect(a.status, a.what).toBeGreaterThanOrEqual(400);
        expect(a.status, a.what).toBeLessThan(500);
        expect(a.type, a.what).toMatch(/^application\/json/);
        expect(a.code, a.what).toEqual(expect.any(String));
      }
    }
    for (const [i, a] of answers.entries()) if (a.status === 200) expect(a.width, a.what).toBe(asks[i]!.size);
    // Every page that exists renders, at every size, except the strip at sizes past max_page_pixels.
    const refused = answers.filter((a) => a.status !== 200);
    const strip = docs.find((d) => d.name === 'sized.pdf')!;
    const expected = asks.filter(
      (q) => q.page > (q.doc.pages ?? 1) || (q.doc === strip && q.page === 2 && q.size >= 3200),
    );
    expect(refused.map((a) => a.what).sort()).toEqual(expected.map((q) => answers[asks.indexOf(q)]!.what).sort());
    expect(answers.filter((a) => a.status === 404).every((a) => a.code === 'PAGE_NOT_FOUND')).toBe(true);
    expect(answers.filter((a) => a.status === 400).every((a) => a.code === 'OCR_PAGE_TOO_LARGE')).toBe(true);

    // The same images again come from the cache, and the server still reads what it is asked.
    const again = await Promise.all(asks.slice(0, 8).map(ask));
    expect(again.map((a) => a.status)).toEqual(answers.slice(0, 8).map((a) => a.status));
    expect((await server.call('GET', '/health')).status).toBe(200);
    expect(died).toBeNull();
  }, 180_000);
});

/**
 * Many page images at once, as the review desk asks for them (thumbnails at 160 px, the page at 800-1200 px,
 * zoomed pages up to the largest size allowed), across several documents: the real server in a process of
 * its own (`lectern serve`), so that a native crash while rendering shows as the process dying rather than
 * as this test file's own process vanishing. Every answer must be a PNG of the width asked for, or a JSON
 * error with its code; the process must live through it all and still answer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, removeDir } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { makePagesPdf, PAPER } from '../helpers/make-pdf.js';

const SIZES = [160, 800, 1200, 3200, 4000];

interface Doc {
  name: string;
  data: Uint8Array;
  jobId?: string;
  pages?: number;
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
    server = await startChildServer();
    void server.exited.then((e) => {
      died = e;
    });
    for (const name of ['amsmath-userguide.pdf', 'beamer-conference-talk.pdf', 'booktabs-manual.pdf', 'zoo-jss-paper.pdf', 'tugboat-babelbib.pdf']) {
      docs.push({ name, data: readFileSync(join(fixturesDir, 'pdfs', name)) });
    }
    docs.push({ name: 'scan02-booktabs-p2.pdf', data: readFileSync(join(fixturesDir, 'scanned', 'scan02-booktabs-p2.pdf')) });
    docs.push({
      name: 'sized.pdf',
      data: await makePagesPdf([
        { size: PAPER.a4, title: 'An A4 page' },
        { size: [2384, 3370], title: 'An A0 page' },
        { size: PAPER.letter, rotate: 90, title: 'A turned letter page' },
        { size: [200, 4000], title: 'A strip' },
      ]),
    });
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
      const pages = (await (await server.call('GET', `/jobs/${id}/pages?limit=500`)).json()) as { total: number };
      d.pages = pages.total;
    }
  }, 300_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    if (server) removeDir(server.dataDir);
  });

  it('answers every one of many concurrent requests with a PNG or a JSON error, and the process lives', async () => {
    const requests: { doc: Doc; page: number; size: number }[] = [];
    for (const doc of docs) {
      for (let page = 1; page <= Math.min(4, doc.pages ?? 1); page++) for (const size of SIZES) requests.push({ doc, page, size });
    }
    const answers = await Promise.all(
      requests.map(async (r) => {
        const res = await server.call('GET', `/jobs/${r.doc.jobId}/pages/${r.page}/image?size=${r.size}`).catch((err: unknown) => err as Error);
        if (res instanceof Error) return { ...r, status: 0, error: String(res) };
        const body = new Uint8Array(await res.arrayBuffer());
        return { ...r, status: res.status, type: res.headers.get('content-type'), width: pngWidth(body), text: res.status === 200 ? '' : new TextDecoder().decode(body) };
      }),
    );
    expect(died).toBeNull();
    for (const a of answers) {
      const what = `${a.doc.name} page ${a.page} size ${a.size}: ${a.status} ${'text' in a ? a.text : a.error}`;
      if (a.status === 200) {
        expect(a.width, what).toBe(a.size);
      } else {
        expect(a.status, what).toBeGreaterThanOrEqual(400);
        expect(a.status, what).toBeLessThan(500);
      }
    }
    const health = await server.call('GET', '/health');
    expect(health.status).toBe(200);
  }, 180_000);
});

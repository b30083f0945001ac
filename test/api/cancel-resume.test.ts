import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, json, startServer, tempDir, waitForProgress, type TestServer } from '../helpers/app.js';
import { makeLongPdf } from '../helpers/make-pdf.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let longPdf: Buffer;
beforeAll(async () => {
  longPdf = await makeLongPdf(400);
});

describe('cancel', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ settings: { workers: 1 } });
  });
  afterAll(async () => server.close());

  it('stops the worker task within 2 s and frees the pool', async () => {
    const created = await json(await server.upload('long.pdf', longPdf));
    await waitForProgress(server, created.job_id, 5);
    const res = await server.call('POST', `/jobs/${created.job_id}/cancel`);
    expect(res.status).toBe(200);
    expect((await json(res)).status).toBe('cancelled');
    const t0 = Date.now();
    // With one worker thread, a tiny job can only finish once the cancelled task has really stopped.
    const small = await ingest(server, 'small.md', new TextEncoder().encode('# After\n\ncancel'));
    expect(small.status).toBe('ready_for_review');
    const afterCancel = Date.now() - t0;
    // The same small job on the idle pool: what reading it costs on this machine now, loaded or not.
    const t1 = Date.now();
    await ingest(server, 'small-again.md', new TextEncoder().encode('# Again\n\nidle pool'));
    expect(afterCancel).toBeLessThan(Date.now() - t1 + 2000);
    const atStop = await json(await server.call('GET', `/jobs/${created.job_id}`));
    await sleep(500);
    const later = await json(await server.call('GET', `/jobs/${created.job_id}`));
    expect(later.status).toBe('cancelled');
    expect(later.progress.pages_done).toBe(atStop.progress.pages_done);
    expect(later.progress.pages_done).toBeLessThan(400);
    expect(later.total_blocks).toBe(0);
  });

  it('refuses to cancel a job that is not in progress (409)', async () => {
    const job = await ingest(server, 'done.md', new TextEncoder().encode('# Done'));
    const res = await server.call('POST', `/jobs/${job.job_id}/cancel`);
    expect(res.status).toBe(409);
    expect((await json(res)).error.code).toBe('INVALID_STATE');
  });
});

describe('restart', () => {
  it('resumes a job that was processing when the server stopped', async () => {
    const dataDir = tempDir();
    const first = await startServer({ dataDir, settings: { workers: 1 } });
    const created = await json(await first.upload('long.pdf', longPdf));
    const queued = await json(
      await first.upload('second.md', new TextEncoder().encode('# Queued\n\nbehind the long one')),
    );
    await waitForProgress(first, created.job_id, 3);
    await first.close();

    const second = await startServer({ dataDir, key: first.key, settings: { workers: 1 } });
    try {
      const job = await second.waitFor(created.job_id, ['ready_for_review', 'failed', 'cancelled'], 180_000);
      expect(job.status).toBe('ready_for_review');
      expect(job.total_pages).toBe(400);
      expect(job.progress.pages_done).toBe(400);
      const other = await second.waitFor(queued.job_id);
      expect(other.status).toBe('ready_for_review');
    } finally {
      await second.close();
    }
  });
});

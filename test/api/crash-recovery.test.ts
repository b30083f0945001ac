/**
 * The server killed with SIGKILL (no shutdown of any kind) in the middle of its work, then started again
 * on the same data folder: the database is intact, unfinished jobs resume, acknowledged edits are all
 * there, and a job that was running every time the server died is failed (WORKER_DIED) rather than
 * resumed into another death.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPage, removeDir, tempDir, waitForProgress } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { makeScan, scansToPdf } from '../helpers/make-scan.js';
import { storeRows } from '../helpers/server-db.js';
import { testStore } from '../helpers/test-database.js';

const dirs: string[] = [];
let longPdf: Buffer;

beforeAll(async () => {
  longPdf = await makeLongPdf(400);
});
afterAll(() => {
  for (const d of dirs) removeDir(d);
});

function newDataDir(): string {
  const dir = tempDir('lectern-crash-');
  dirs.push(dir);
  return dir;
}

/**
 * The stopped server's SQLite file is intact (SQLite's own check). PostgreSQL is a server of its own that
 * a killed node cannot leave half-written: there, the checks that follow (attempts, jobs resumed, edits
 * kept) are what is asked.
 */
function expectIntact(dataDir: string): void {
  if (testStore() === 'postgres') return;
  const db = new Database(join(dataDir, 'lectern.db'));
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
}
const attempts = async (dataDir: string, jobId: string) =>
  (await storeRows<{ attempts: number }>(dataDir, 'SELECT attempts FROM jobs WHERE job_id = ?', [jobId]))[0]?.attempts;

async function upload(server: ChildServer, name: string, data: Uint8Array): Promise<string> {
  const res = await server.upload(name, data);
  expect(res.status).toBe(201);
  return ((await res.json()) as { job_id: string }).job_id;
}

describe('kill -9', () => {
  it('during ingestion: the database is intact and the jobs resume', async () => {
    const dataDir = newDataDir();
    const first = await startChildServer({ dataDir });
    const long = await upload(first, 'long.pdf', longPdf);
    const queued = await upload(first, 'queued.md', new TextEncoder().encode('# Queued\n\nBehind the long one.'));
    await waitForProgress(first, long);
    await first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expectIntact(dataDir);
    expect(await attempts(dataDir, long)).toBe(1);

    const second = await startChildServer({ dataDir, key: first.key });
    try {
      const job = await second.waitFor(long, undefined, 180_000);
      expect(job.status).toBe('ready_for_review');
      expect(job.progress.pages_done).toBe(400);
      expect((await second.waitFor(queued)).status).toBe('ready_for_review');
    } finally {
      await second.kill('SIGTERM');
    }
    expectIntact(dataDir);
    // The killed attempt counts; the resumed one finished.
    expect(await attempts(dataDir, long)).toBe(2);
  });

  it('during a stream of PATCHes: no acknowledged edit is lost', async () => {
    const dataDir = newDataDir();
    const first = await startChildServer({ dataDir });
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of a document under heavy review.`);
    const jobId = await upload(
      first,
      'review.md',
      new TextEncoder().encode(`# Under review\n\n${paragraphs.join('\n\n')}`),
    );
    expect((await first.waitFor(jobId)).status).toBe('ready_for_review');
    const blocks = ((await listPage(first, `/jobs/${jobId}/blocks?limit=100`)) as { items: Record<string, any>[] })
      .items;
    expect(blocks.length).toBeGreaterThanOrEqual(8);

    // Four reviewers edit their own blocks one PATCH after another; the server dies under them.
    const acked = new Map<string, { version: number; text: string }>();
    let ackedCount = 0;
    let stop = false;
    let reachedEnough!: () => void;
    const enough = new Promise<void>((ok) => (reachedEnough = ok));
    const reviewer = async (own: Record<string, any>[]) => {
      for (let n = 0; !stop; n++) {
        const block = own[n % own.length]!;
        const current = acked.get(block.block_id)?.version ?? block.version;
        const text = `${block.block_id} edit ${n}`;
        let res: Response;
        try {
          res = await first.call('PATCH', `/jobs/${jobId}/blocks/${block.block_id}`, {
            json: { version: current, edited_text: text },
          });
        } catch {
          return; // the server is gone: this edit was never acknowledged
        }
        if (res.status !== 200) throw new Error(`PATCH answered ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as { version: number; edited_text: string };
        acked.set(block.block_id, { version: body.version, text: body.edited_text });
        if (++ackedCount === 80) reachedEnough();
      }
    };
    const streams = [0, 1, 2, 3].map((r) => reviewer(blocks.filter((_, i) => i % 4 === r)));
    await Promise.race([
      enough,
      Promise.all(streams).then(() => Promise.reject(new Error('the reviewers stopped before the kill'))),
    ]);
    await first.kill('SIGKILL');
    stop = true;
    await Promise.all(streams);
    expectIntact(dataDir);

    const second = await startChildServer({ dataDir, key: first.key });
    try {
      for (const [blockId, edit] of acked) {
        const block = (await (await second.call('GET', `/jobs/${jobId}/blocks/${blockId}`)).json()) as {
          version: number;
          edited_text: string;
        };
        // The acknowledged edit, or one more of the same reviewer's that was written as the server died, before it could answer.
        expect([edit.version, edit.version + 1]).toContain(block.version);
        expect(block.edited_text).toEqual(
          block.version === edit.version ? edit.text : expect.stringMatching(new RegExp(`^${blockId} edit \\d+$`)),
        );
      }
    } finally {
      await second.kill('SIGTERM');
    }
  });
});

describe('a job the server dies on', () => {
  it('is resumed once, then failed with WORKER_DIED instead of killing the server again', async () => {
    const dataDir = newDataDir();
    let server = await startChildServer({ dataDir });
    const key = server.key;
    // Scanned pages, OCR'd at a second or more each: a restarted server resumes the job before it listens,
    // and a text PDF can be read whole before a client sees it running again; these pages cannot.
    const jobId = await upload(
      server,
      'deadly.pdf',
      await scansToPdf(await Promise.all([1, 2, 3, 4].map((n) => makeScan(longPdf, n)))),
    );
    // The first death, and the second on the resumed attempt.
    for (let death = 1; death <= 2; death++) {
      // Claimed by this server (on a team's queue, once the killed one's lease has run out), then read.
      await expect.poll(() => attempts(dataDir, jobId), { timeout: 60_000 }).toBe(death);
      await waitForProgress(server, jobId);
      await server.kill('SIGKILL');
      expect(await attempts(dataDir, jobId)).toBe(death);
      server = await startChildServer({ dataDir, key });
    }
    try {
      const job = await server.waitFor(jobId, ['ready_for_review', 'failed', 'cancelled'], 30_000);
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('WORKER_DIED');
      expect(job.error.message).toMatch(/2 times/);
      expect(job.total_blocks).toBe(0);
      // It stays failed, and the server goes on with other work.
      const other = await upload(server, 'next.md', new TextEncoder().encode('# Next\n\nA harmless document.'));
      expect((await server.waitFor(other)).status).toBe('ready_for_review');
      expect(((await (await server.call('GET', `/jobs/${jobId}`)).json()) as { status: string }).status).toBe('failed');
    } finally {
      await server.kill('SIGTERM');
    }
    // The desktop claims the job a third time and fails it; a team's queue gives the task up at that claim,
    // before the job counts an attempt.
    expect(await attempts(dataDir, jobId)).toBe(testStore() === 'postgres' ? 2 : 3);
    expectIntact(dataDir);
  });
});

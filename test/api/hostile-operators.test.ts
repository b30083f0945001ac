/**
 * A PDF of text operators (the issue's "3.4 MB PDF of inflated text operators" that passed 4 GB and never
 * finished): its content stream is under the part limit, so it is read, and every operator is a text item of
 * its own, so the worker thread's heap fills. The heap guard fails the document before V8's own limit (which
 * can abort the whole process) and the retry on another attempt fails alike: OUT_OF_MEMORY, attempt 2 of 2,
 * with the server's RSS under 1.5 GB for two of them at once (see hostile-files.test.ts for the others).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { pdfTextOperatorBomb } from '../helpers/hostile-files.js';
import { expectContained, MAX_RSS_MB } from '../helpers/hostile-run.js';

describe('a PDF of millions of text operators', () => {
  let server: ChildServer;
  beforeAll(async () => {
    server = await startChildServer();
  });
  afterAll(async () => {
    await server.kill('SIGKILL');
    removeDir(server.dataDir);
  });

  it(`fails with OUT_OF_MEMORY after one retry, alone and two at once, under ${MAX_RSS_MB} MB`, async () => {
    // 120 MiB of operators, just under the 128 MiB part limit: the most a stream may bring into memory.
    const file = pdfTextOperatorBomb(120);
    expect(file.length).toBeLessThan(1024 * 1024);
    await expectContained(server, { name: 'operators', file: 'operators.pdf', make: () => file, code: 'OUT_OF_MEMORY', message: /attempt 2 of 2/ });
    const res = await server.upload('after.md', new TextEncoder().encode('# Afterwards\n\nStill reading.'));
    expect((await server.waitFor(((await res.json()) as { job_id: string }).job_id)).status).toBe('ready_for_review');
  });
});

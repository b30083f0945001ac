/**
 * A PDF of text operators (like a reported 3.4 MB PDF of inflated text operators that passed 4 GB and never
 * finished): its content stream is under the part limit, so it is read, and every operator is a text item of
 * its own, so the worker thread's heap fills. The heap guard fails the document before V8's own limit (which
 * can abort the whole process) and the retry on another attempt fails alike: OUT_OF_MEMORY, attempt 2 of 2,
 * with the server's RSS under 1.5 GB for two of them at once (see hostile-files.test.ts for the others).
 */
import { describe, expect, it } from 'vitest';
import { pdfTextOperatorBomb } from '../helpers/hostile-files.js';
import { expectContained, expectStillReads, MAX_RSS_MB, useChildServer } from '../helpers/hostile-run.js';

describe('a PDF of millions of text operators', () => {
  const server = useChildServer();

  it(`fails with OUT_OF_MEMORY after one retry, alone and two at once, under ${MAX_RSS_MB} MB`, async () => {
    // 120 MiB of operators, just under the 128 MiB part limit: the most a stream may bring into memory.
    const file = pdfTextOperatorBomb(120);
    expect(file.length).toBeLessThan(1024 * 1024);
    await expectContained(server(), {
      name: 'operators',
      file: 'operators.pdf',
      make: () => file,
      code: 'OUT_OF_MEMORY',
      message: /attempt 2 of 2/,
    });
    await expectStillReads(server(), 'after.md', '# Afterwards\n\nStill reading.');
  });
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';

describe('an upload refused after its file was received', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  }, 120_000);
  afterAll(async () => server?.close());

  it('keeps no copy of the file when a second file goes past the one-file limit', async () => {
    const form = new FormData();
    form.append('file', new Blob(['The first file is read whole and written to the tmp folder.']), 'a.txt');
    form.append('file', new Blob(['A second file is one too many.']), 'b.txt');
    const res = await server.call('POST', '/jobs', { body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe(
      'FST_FILES_LIMIT',
    );
    expect(readdirSync(join(server.dataDir, 'tmp'))).toEqual([]);
  });
});

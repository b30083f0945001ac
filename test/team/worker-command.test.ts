import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/app.js';

describe('lectern worker', () => {
  it('refuses to start without a database, in one line', async () => {
    const dataDir = tempDir('lectern-worker-');
    const env = { ...process.env, LECTERN_DATABASE_URL: '' };
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [join(repoRoot, 'bin', 'lectern.js'), 'worker', '--data-dir', dataDir],
        { cwd: dataDir, env },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      ),
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^lectern worker: .*database.*--database-url/),
    ]);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Tests drive the built server and workers, so build them once before any test runs.
 *
 * Every temporary folder of the run (data folders, scratch files, browser profiles, child servers') lives
 * under one folder that is removed when the run ends: the test files make hundreds of data folders and
 * leaving them behind filled this machine's disk until CI could not install.
 */
export default function setup(): () => void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { cwd: root, stdio: 'inherit' });
  const runTmp = mkdtempSync(join(tmpdir(), 'lectern-tests-'));
  // The test workers are forked after this and inherit it; os.tmpdir() reads TMPDIR on every call.
  process.env.TMPDIR = runTmp;
  return () => rmSync(runTmp, { recursive: true, force: true });
}

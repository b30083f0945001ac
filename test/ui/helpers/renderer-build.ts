import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/app.js';

export const rendererOut = join(repoRoot, 'out', 'renderer');
const lockDir = join(repoRoot, 'out', '.ui-test-build.lock');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function stale(): boolean {
  const index = join(rendererOut, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  return built < Math.max(newest(join(repoRoot, 'renderer')), newest(join(repoRoot, 'main')));
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The UI tests drive the built renderer, as Electron and `lectern serve` do; it is rebuilt (electron-vite,
 * a few seconds) when a renderer or main source is newer than the build. Test files run in parallel
 * processes: a lock directory makes one of them build while the others wait, then find the build fresh.
 */
export function ensureRendererBuilt(): void {
  if (!stale()) return;
  mkdirSync(join(repoRoot, 'out'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      // A lock older than two minutes belongs to a process that died while building.
      if (existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs > 120_000)
        rmSync(lockDir, { recursive: true, force: true });
      pause(200);
    }
  }
  try {
    if (stale())
      execFileSync(join(repoRoot, 'node_modules', '.bin', 'electron-vite'), ['build'], {
        cwd: repoRoot,
        stdio: 'pipe',
      });
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

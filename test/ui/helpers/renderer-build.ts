import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/app.js';

export const rendererOut = join(repoRoot, 'out', 'renderer');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * The UI tests drive the built renderer, as Electron and `lectern serve` do; rebuild it (electron-vite,
 * ~5 s) when a renderer or main source is newer than the build.
 */
export function ensureRendererBuilt(): void {
  const index = join(rendererOut, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const sources = Math.max(newest(join(repoRoot, 'renderer')), newest(join(repoRoot, 'main')));
  if (built >= sources) return;
  execFileSync(join(repoRoot, 'node_modules', '.bin', 'electron-vite'), ['build'], { cwd: repoRoot, stdio: 'pipe' });
}

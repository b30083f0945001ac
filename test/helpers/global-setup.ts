import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Tests drive the built server and workers, so build them once before any test runs. */
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { cwd: root, stdio: 'inherit' });
}

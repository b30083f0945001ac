import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found by walking up from this module: the same code runs from the
 * TypeScript sources (tests), from dist/ (the CLI) and from out/main/ (Electron).
 */
export function findAppRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the application root above ${from}`);
    dir = parent;
  }
}

/** Installed models live in the data directory, one folder per catalog id. */
export function modelsDirOf(dataDir: string): string {
  return join(dataDir, 'models');
}

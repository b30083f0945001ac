import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from '../../helpers/app.js';

/** Screenshots go under test-output/ (gitignored), one folder per test file. */
export function screenshotDir(name: string): string {
  const dir = join(repoRoot, 'test-output', 'ui', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function shot(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`) });
}

/** Every URL the page asked for, to check that nothing leaves the machine. */
export function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

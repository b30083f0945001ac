import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/app.js';

const CORE = join(repoRoot, 'server', 'core');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The top folder under server/core a file is in ('' for the files directly in it). */
const folderOf = (file: string): string => {
  const parts = relative(CORE, file).split(sep);
  return parts.length > 1 ? (parts[0] as string) : '';
};

/** Edges between server/core's folders, from the relative imports (type imports too: they tie folders as much). */
function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of files(CORE)) {
    const from = folderOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const target = resolve(dirname(file), m[1] as string);
      if (!target.startsWith(CORE + sep)) continue;
      const to = folderOf(target);
      if (from && to && from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

describe("server/core's folders", () => {
  it('extraction and OCR, jobs and review, import one way only', () => {
    const edges = folderImports();
    const both = (a: string, b: string) => Boolean(edges.get(a)?.has(b) && edges.get(b)?.has(a));
    // OCR builds on extraction's types, limits and PDF loader; extraction gets the OCR reader handed in.
    expect(edges.get('ocr')?.has('extract')).toBe(true);
    expect(both('extract', 'ocr')).toBe(false);
    expect(both('jobs', 'review')).toBe(false);
  });
});

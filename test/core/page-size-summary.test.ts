/**
 * The job's `page_size`: the most common page size, worked out when an extraction is saved, and by the
 * page_geometry migration for jobs read before it. The migration runs over a real SQLite database that
 * already holds jobs, with drizzle's own migrator: first up to the migration before, then all.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commonPageSize } from '../../server/core/pages/page-list.js';
import { openDatabase } from '../../server/store/db.js';
import { removeDir, repoRoot, tempDir } from '../helpers/app.js';
import { migrationsBefore } from '../helpers/migrations.js';

const dir = tempDir('lectern-migration-');
afterAll(() => removeDir(dir));

const LETTER = { width: 612, height: 792 };
const A4 = { width: 595.28, height: 841.89 };

describe('commonPageSize', () => {
  it('gives the most common size and how many pages have it', () => {
    expect(commonPageSize([LETTER, A4, A4, { width: 841.89, height: 595.28 }])).toEqual({ ...A4, pages: 2 });
    expect(commonPageSize([A4])).toEqual({ ...A4, pages: 1 });
  });
  it('gives a tie to the size of the earliest page, as the migration does', () => {
    expect(commonPageSize([A4, LETTER, LETTER, A4])).toEqual({ ...A4, pages: 2 });
  });
  it('has nothing for pages without a size (flow formats store 0 x 0)', () => {
    expect(commonPageSize([{ width: 0, height: 0 }])).toBeNull();
    expect(commonPageSize([])).toBeNull();
  });
});

describe('migration page_geometry', () => {
  it('gives existing jobs the most common size of their pages, and none to documents without pages', () => {
    const file = join(dir, 'lectern.db');
    const old = openDatabase(file, migrationsBefore('_page_geometry', dir));
    const job = old.sqlite.prepare(
      `INSERT INTO jobs (job_id, status, source_file, format, file_hash, size_bytes, options) VALUES (?, 'ready_for_review', ?, ?, 'h', 1, '{}')`,
    );
    const page = old.sqlite.prepare(
      'INSERT INTO pages (job_id, page, width, height, needs_ocr) VALUES (?, ?, ?, ?, 0)',
    );
    job.run('mixed', 'mixed.pdf', 'pdf');
    // A Letter cover, then three A4 pages: A4 is the most common.
    for (const [n, w, h] of [
      [1, 612, 792],
      [2, 595.28, 841.89],
      [3, 595.28, 841.89],
      [4, 595.28, 841.89],
    ] as const)
      page.run('mixed', n, w, h);
    job.run('tie', 'tie.pdf', 'pdf');
    // Equally common sizes: the first page's wins.
    for (const [n, w, h] of [
      [1, 612, 792],
      [2, 595.28, 841.89],
    ] as const)
      page.run('tie', n, w, h);
    job.run('notes', 'notes.md', 'markdown');
    page.run('notes', 1, 0, 0);
    job.run('queued', 'queued.pdf', 'pdf');
    old.close();

    const now = openDatabase(file, join(repoRoot, 'drizzle'));
    const sizes = Object.fromEntries(
      (
        now.sqlite.prepare('SELECT job_id, page_size FROM jobs').all() as { job_id: string; page_size: string | null }[]
      ).map((r) => [r.job_id, r.page_size && JSON.parse(r.page_size)]),
    );
    expect(sizes).toEqual({
      mixed: { width: 595.28, height: 841.89, pages: 3 },
      tie: { width: 612, height: 792, pages: 1 },
      notes: null,
      queued: null,
    });
    // Rotation was never recorded for these pages: unknown, not 0.
    expect(now.sqlite.prepare('SELECT DISTINCT rotation FROM pages').all()).toEqual([{ rotation: null }]);
    now.close();
  });
});

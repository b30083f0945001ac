/**
 * Page images for review: a PDF page rendered by pdf.js, or an image document's page, as PNG at a
 * requested width. Rendering runs in the worker pool; the PNG is kept on disk in the job's folder (so it
 * goes when the job is deleted) and later requests for the same page and width read the file.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileStore } from '../../store/file-store.js';
import type { Store } from '../../store/store.js';
import type { TaskPool } from '../pool.js';
import { findPagedJob, pageFailure } from './paged-job.js';

export function createPageImages({ store, pool, files }: { store: Store; pool: Pick<TaskPool, 'renderPage'>; files: FileStore }) {
  // Two requests for one uncached image share one render instead of racing to write the same file.
  const rendering = new Map<string, Promise<string>>();

  async function render(path: string, input: Parameters<TaskPool['renderPage']>[0]): Promise<string> {
    const png = await pool.renderPage(input).catch((err: unknown) => {
      throw pageFailure(err, input.page, 'could not be drawn');
    });
    const dir = join(path, '..');
    await mkdir(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, png);
    await rename(tmp, path);
    return path;
  }

  return {
    /** Path of the cached PNG of page `page` at `width` px, rendered first when missing. */
    async pngPath(jobId: string, page: number, width: number): Promise<string> {
      const job = await findPagedJob(store, jobId, page);
      const path = join(files.jobDir(jobId), 'page-images', `page-${page}-w${width}.png`);
      if (existsSync(path)) return path;
      let pending = rendering.get(path);
      if (!pending) {
        const input = { path: files.originalPath(jobId, job.source_file), format: job.format, page, width };
        pending = render(path, input).finally(() => rendering.delete(path));
        rendering.set(path, pending);
      }
      return pending;
    },
  };
}
export type PageImages = ReturnType<typeof createPageImages>;

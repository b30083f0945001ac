/**
 * Page images for review: a PDF page rendered by pdf.js, or an image document's page, as PNG at a
 * requested width. Rendering runs in the worker pool; the PNG is kept as an object under the job's files
 * (`files/<job>/page-images/…`, so it goes when the job is deleted) and later requests for the same page
 * and width are streamed from the store.
 */
import type { Readable } from 'node:stream';
import type { Logger } from '../jobs/job-runner.js';
import type { FileStore } from '../../store/file-store.js';
import type { Store } from '../../store/store.js';
import { isAppError } from '../errors.js';
import type { TaskPool } from '../pool.js';
import { findPagedJob, pageFailure } from './paged-job.js';

/**
 * How long a downloaded copy of an original stays after a page was drawn or read from it (object stores
 * that are not a folder): a reviewer turning pages needs it again within seconds.
 */
export const ORIGINAL_LINGER_MS = 60_000;

/** A page image: the PNG just drawn, or the stored one as a stream. */
export type PageImage = Buffer | Readable;

export function createPageImages({
  store,
  pool,
  files,
  log,
}: {
  store: Store;
  pool: Pick<TaskPool, 'renderPage'>;
  files: FileStore;
  log?: Pick<Logger, 'warn'>;
}) {
  // Two requests for one uncached image share one render instead of racing to write the same object.
  const rendering = new Map<string, Promise<Buffer>>();

  async function render(
    key: string,
    jobId: string,
    sourceFile: string,
    input: Omit<Parameters<TaskPool['renderPage']>[0], 'path'>,
  ): Promise<Buffer> {
    const png = await files.useOriginal(
      jobId,
      sourceFile,
      (path) =>
        pool.renderPage({ ...input, path }).catch((err: unknown) => {
          throw pageFailure(err, input.page, 'could not be drawn');
        }),
      ORIGINAL_LINGER_MS,
    );
    const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
    try {
      await files.objects.put(key, bytes, { contentType: 'image/png' });
    } catch (err) {
      // The image is only a cache: the reviewer gets the page all the same, and the next request draws it again.
      if (!isAppError(err)) throw err;
      log?.warn({ err, key }, 'could not keep a page image in the object store');
    }
    return bytes;
  }

  return {
    /** The PNG of page `page` at `width` px: streamed from the store, or rendered first when missing. */
    async image(jobId: string, page: number, width: number): Promise<PageImage> {
      const job = await findPagedJob(store, jobId, page);
      const key = files.pageImageKey(jobId, page, width);
      let pending = rendering.get(key);
      if (pending) return pending;
      try {
        return await files.objects.getStream(key);
      } catch (err) {
        // Not drawn yet at this width: drawn below. A store that cannot be read answers its own failure.
        if ((err as { code?: string }).code !== 'OBJECT_NOT_FOUND') throw err;
      }
      pending = rendering.get(key);
      if (!pending) {
        pending = render(key, jobId, job.source_file, { format: job.format, page, width }).finally(() =>
          rendering.delete(key),
        );
        rendering.set(key, pending);
      }
      return pending;
    },
  };
}
export type PageImages = ReturnType<typeof createPageImages>;

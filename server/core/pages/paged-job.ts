/** Jobs whose documents have pages (PDF, images): the only ones with page images and re-OCR. */
import type { JobRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories } from '../../store/store.js';
import { AppError, describeFailure, isAppError } from '../errors.js';
import type { DocumentFormat } from '../extract/types.js';
import { findJob } from '../jobs/find-job.js';

/** The formats whose jobs have page geometry to show. */
export const PAGED_FORMATS: readonly DocumentFormat[] = ['pdf', 'image'];

/** The job, if its document has pages (JOB_NOT_FOUND, or INVALID_STATE for a flow format). */
export async function findJobWithPages(repos: Pick<Repositories, 'jobs'>, jobId: string): Promise<JobRecord> {
  const job = await findJob(repos, jobId);
  if (!PAGED_FORMATS.includes(job.format)) {
    throw new AppError('INVALID_STATE', `a ${job.format} document has no pages`, {
      format: job.format,
      paged_formats: PAGED_FORMATS,
    });
  }
  return job;
}

/** The job, if its document has pages to show and read and page `page` is one of them. */
export async function findPagedJob(
  repos: Pick<Repositories, 'jobs' | 'pages'>,
  jobId: string,
  page: number,
): Promise<JobRecord> {
  const job = await findJobWithPages(repos, jobId);
  // A document that could not be read (or whose reading was stopped) has no pages to show or read again:
  // rendering it would only meet the failure its job already records.
  if (job.status === 'failed' || job.status === 'cancelled') {
    throw new AppError('INVALID_STATE', `job ${jobId} is ${job.status}: its document has no pages to show`, {
      status: job.status,
      error_code: job.error_code,
    });
  }
  // Before extraction has counted the pages, the worker itself answers PAGE_NOT_FOUND for a page too far.
  if (job.total_pages > 0 && !(await repos.pages.has(jobId, page))) {
    throw new AppError('PAGE_NOT_FOUND', `page ${page} does not exist in job ${jobId} (it has ${job.total_pages})`, {
      total_pages: job.total_pages,
    });
  }
  return job;
}

/**
 * What to throw when the pool could not draw or read page `page`: the worker names why with the reader's
 * own code (PDF_INVALID…), which the error catalogue may not know, so the caller gets 422
 * PAGE_RENDER_FAILED with that code as its reason, never a 500. A catalogued error passes as it is.
 */
export function pageFailure(err: unknown, page: number, what: string): unknown {
  if (isAppError(err)) return err;
  const { code, message } = describeFailure(err);
  return new AppError('PAGE_RENDER_FAILED', `page ${page} ${what}: ${message}`, { reason: code });
}

import { randomUUID } from 'node:crypto';
import type { FileStore } from '../../store/file-store.js';
import type { JobSource } from '../../store/repos/jobs-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError, describeFailure } from '../errors.js';
import type { DocumentFormat } from '../extract/types.js';
import { jobView, type JobView } from '../views.js';
import { findJob } from './find-job.js';
import { JOB_STATES, type JobState } from './job-states.js';
import type { JobRunner } from './job-runner.js';
import type { JobWatch } from './job-watch.js';
import type { KeyScope } from '../keys/roles.js';

const CANCELLABLE: JobState[] = ['queued', 'processing'];

export interface NewUpload {
  /** A file already written to the data dir's tmp folder; it becomes the job's original (and is gone from tmp either way). */
  tmpPath: string;
  sourceFile: string;
  format: DocumentFormat;
  fileHash: string;
  sizeBytes: number;
  options: { chunk_size: number; chunk_overlap: number; ocr_language?: string };
  /** A bot's document: the bot, and where the document came from. */
  botId?: string;
  source?: JobSource;
}

export interface JobsServiceDeps {
  store: Store;
  files: FileStore;
  runner: JobRunner;
  clock: Clock;
  /** Takes a deleted job's vectors out of the collection indexes (its mapping rows go with the job). */
  vectors?: { removeJob(jobId: string): Promise<number> };
  /** Tells the job's followers of a cancel or delete at once. */
  watch?: Pick<JobWatch, 'changed'>;
}

export function createJobsService({ store, files, runner, clock, vectors, watch }: JobsServiceDeps) {
  const row = (jobId: string) => findJob(store, jobId);

  /** The job as GET /jobs/{id} answers it, with its OCR pages. */
  async function view(jobId: string): Promise<JobView> {
    const [job, ocrPages] = await Promise.all([row(jobId), store.pages.ocrPages(jobId)]);
    return jobView(job, ocrPages);
  }

  /**
   * The job's row; if it cannot be written (a team server's database unavailable), its folder goes too. In a
   * transaction of its own: a lone INSERT sent to a database that froze runs when it thaws, after the upload
   * was answered 503 and its original removed; one behind a BEGIN that got no answer never runs.
   */
  async function insertOrDiscard(jobId: string, job: Parameters<Store['jobs']['insert']>[0]) {
    try {
      return await store.transaction((tx) => tx.jobs.insert(job));
    } catch (err) {
      files.removeJob(jobId);
      throw err;
    }
  }

  return {
    row,

    async create(upload: NewUpload): Promise<JobView> {
      const jobId = randomUUID();
      // The original first, then the row: a job is never recorded without its original. A store that
      // refuses the write answers OBJECT_STORE_FAILED and leaves no object (the store writes whole or not at all).
      await files.putOriginal(jobId, upload.sourceFile, upload.tmpPath);
      const now = isoNow(clock);
      const created = await insertOrDiscard(jobId, {
        job_id: jobId,
        status: 'queued',
        source_file: upload.sourceFile,
        format: upload.format,
        file_hash: upload.fileHash,
        size_bytes: upload.sizeBytes,
        options: upload.options,
        bot_id: upload.botId ?? null,
        source: upload.source ?? null,
        created_at: now,
        updated_at: now,
      }).catch(async (err: unknown) => {
        // No row: the original would be no one's.
        await files.removeJob(jobId).catch(() => undefined);
        throw err;
      });
      // Should the database go away right here, the job's row waits queued without a task: a team server's
      // queue looks for such jobs when its connection comes back (shared-job-queue.ts), the desktop's at start.
      await runner.enqueue(jobId);
      return jobView(created);
    },

    /** Jobs, newest first; with a key's scope, only its jobs and its bots' documents. */
    async list(q: { status?: string; skip: number; limit: number }, scope: KeyScope | null = null) {
      const wanted =
        q.status
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean) ?? [];
      const unknown = wanted.filter((s) => !(JOB_STATES as readonly string[]).includes(s));
      if (unknown.length > 0)
        throw new AppError('VALIDATION_FAILED', `unknown job status: ${unknown.join(', ')}`, { allowed: JOB_STATES });
      const page = await store.jobs.list({ statuses: wanted, scope, skip: q.skip, limit: q.limit });
      return { ...page, items: page.items.map((j) => jobView(j)) };
    },

    async cancel(jobId: string): Promise<JobView> {
      const job = await row(jobId);
      if (!CANCELLABLE.includes(job.status)) {
        throw new AppError('INVALID_STATE', `a ${job.status} job cannot be cancelled`, {
          status: job.status,
          allowed_from: CANCELLABLE,
        });
      }
      const now = isoNow(clock);
      await store.jobs.update(jobId, { status: 'cancelled', finished_at: now, updated_at: now });
      await runner.abort(jobId);
      watch?.changed(jobId);
      return view(jobId);
    },

    /**
     * The job's work is stopped, then its files go, then its vectors and rows. Files before rows: a store
     * that refuses to delete answers OBJECT_STORE_FAILED and the job stays (failed, if it was still to be
     * read) for a later delete, rather than a deleted job leaving objects no one would ever remove.
     */
    async delete(jobId: string): Promise<void> {
      await row(jobId);
      await runner.abort(jobId);
      try {
        await files.removeJob(jobId);
      } catch (err) {
        const failure = describeFailure(err);
        const now = isoNow(clock);
        await store.jobs.update(
          jobId,
          {
            status: 'failed',
            error_code: failure.code,
            error_message: failure.message,
            finished_at: now,
            updated_at: now,
          },
          CANCELLABLE,
        );
        watch?.changed(jobId);
        throw err;
      }
      await vectors?.removeJob(jobId);
      await store.jobs.delete(jobId);
      watch?.changed(jobId);
    },
  };
}
export type JobsService = ReturnType<typeof createJobsService>;

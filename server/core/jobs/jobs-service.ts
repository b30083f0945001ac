import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync } from 'node:fs';
import { and, desc, eq, inArray, isNotNull, or } from 'drizzle-orm';
import { jobs, pages, type JobSource } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import type { FileStore } from '../../store/file-store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { DocumentFormat } from '../extract/types.js';
import { jobView, type OcrPageView } from '../views.js';
import { findJob } from './find-job.js';
import { JOB_STATES, type JobState } from './job-states.js';
import type { JobRunner } from './job-runner.js';
import type { JobWatch } from './job-watch.js';
import { paginate } from '../../store/paginate.js';
import type { KeyScope } from '../keys/roles.js';

const CANCELLABLE: JobState[] = ['queued', 'processing'];

export interface NewUpload {
  /** A file already written to the data dir's tmp folder; it is moved into the job's folder. */
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
  db: Db;
  files: FileStore;
  runner: JobRunner;
  clock: Clock;
  /** Takes a deleted job's vectors out of the collection indexes (its mapping rows go with the job). */
  vectors?: { removeJob(jobId: string): number };
  /** Tells the job's followers of a cancel or delete at once. */
  watch?: Pick<JobWatch, 'changed'>;
}

export function createJobsService({ db, files, runner, clock, vectors, watch }: JobsServiceDeps) {
  const row = (jobId: string) => findJob(db, jobId);

  function ocrPages(jobId: string): number[] {
    return db
      .select({ page: pages.page })
      .from(pages)
      .where(and(eq(pages.jobId, jobId), eq(pages.needsOcr, true)))
      .orderBy(pages.page)
      .all()
      .map((p) => p.page);
  }

  function ocrRead(jobId: string): OcrPageView[] {
    return db
      .select({ page: pages.page, language: pages.ocrLanguage, confidence: pages.ocrConfidence, rotation: pages.ocrRotation })
      .from(pages)
      .where(and(eq(pages.jobId, jobId), isNotNull(pages.ocrLanguage)))
      .orderBy(pages.page)
      .all()
      .map((p) => ({ ...p, language: p.language ?? '' }));
  }

  return {
    row,

    create(upload: NewUpload) {
      const jobId = randomUUID();
      const dest = files.originalPath(jobId, upload.sourceFile);
      mkdirSync(files.jobDir(jobId), { recursive: true });
      renameSync(upload.tmpPath, dest);
      const now = isoNow(clock);
      const created = db
        .insert(jobs)
        .values({
          jobId,
          status: 'queued',
          sourceFile: upload.sourceFile,
          format: upload.format,
          fileHash: upload.fileHash,
          sizeBytes: upload.sizeBytes,
          options: upload.options,
          botId: upload.botId ?? null,
          source: upload.source ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      runner.enqueue(jobId);
      return jobView(created);
    },

    get(jobId: string) {
      return jobView(row(jobId), ocrPages(jobId), ocrRead(jobId));
    },

    /** Jobs, newest first; with a key's scope, only its jobs and its bots' documents. */
    list(q: { status?: string; skip: number; limit: number }, scope: KeyScope | null = null) {
      const wanted = q.status?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
      const unknown = wanted.filter((s) => !(JOB_STATES as readonly string[]).includes(s));
      if (unknown.length > 0) throw new AppError('VALIDATION_FAILED', `unknown job status: ${unknown.join(', ')}`, { allowed: JOB_STATES });
      const byStatus = wanted.length > 0 ? inArray(jobs.status, wanted) : undefined;
      const inScope = scope ? or(inArray(jobs.jobId, scope.jobs), inArray(jobs.botId, scope.bots)) : undefined;
      return paginate(db, jobs, and(byStatus, inScope), [desc(jobs.createdAt), desc(jobs.jobId)], q, (r) => jobView(r));
    },

    cancel(jobId: string) {
      const job = row(jobId);
      if (!CANCELLABLE.includes(job.status as JobState)) {
        throw new AppError('INVALID_STATE', `a ${job.status} job cannot be cancelled`, { status: job.status, allowed_from: CANCELLABLE });
      }
      const now = isoNow(clock);
      db.update(jobs).set({ status: 'cancelled', finishedAt: now, updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
      runner.abort(jobId);
      watch?.changed(jobId);
      return jobView(row(jobId), ocrPages(jobId), ocrRead(jobId));
    },

    delete(jobId: string): void {
      row(jobId);
      runner.abort(jobId);
      vectors?.removeJob(jobId);
      db.delete(jobs).where(eq(jobs.jobId, jobId)).run();
      files.removeJob(jobId);
      watch?.changed(jobId);
    },
  };
}
export type JobsService = ReturnType<typeof createJobsService>;

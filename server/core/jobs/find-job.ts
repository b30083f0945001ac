import { eq } from 'drizzle-orm';
import { jobs } from '../../../drizzle/schema.js';
import type { DbLike } from '../../store/db.js';
import { AppError } from '../errors.js';

/** The job's row, or JOB_NOT_FOUND. */
export function findJob(db: DbLike, jobId: string): typeof jobs.$inferSelect {
  const job = db.select().from(jobs).where(eq(jobs.jobId, jobId)).get();
  if (!job) throw new AppError('JOB_NOT_FOUND', `job ${jobId} does not exist`);
  return job;
}

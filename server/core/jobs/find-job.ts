import type { JobRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories } from '../../store/store.js';
import { AppError } from '../errors.js';

/** The job, or JOB_NOT_FOUND. */
export async function findJob(repos: Pick<Repositories, 'jobs'>, jobId: string): Promise<JobRecord> {
  const job = await repos.jobs.get(jobId);
  if (!job) throw new AppError('JOB_NOT_FOUND', `job ${jobId} does not exist`);
  return job;
}

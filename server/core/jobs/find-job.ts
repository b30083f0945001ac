import type { JobRecord, JobStatusRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories } from '../../store/store.js';
import { AppError } from '../errors.js';

const notFound = (jobId: string) => new AppError('JOB_NOT_FOUND', `job ${jobId} does not exist`);

/** The job, or JOB_NOT_FOUND. */
export async function findJob(repos: Pick<Repositories, 'jobs'>, jobId: string): Promise<JobRecord> {
  const job = await repos.jobs.get(jobId);
  if (!job) throw notFound(jobId);
  return job;
}

/** What GET /jobs/{id} shows of the job, read together, or JOB_NOT_FOUND. */
export async function findJobStatus(repos: Pick<Repositories, 'jobs'>, jobId: string): Promise<JobStatusRecord> {
  const status = await repos.jobs.status(jobId);
  if (!status) throw notFound(jobId);
  return status;
}

import type { JobRecord } from '../../store/repos/jobs-repo.js';

/**
 * Where the job runner finds the documents to read, and how it keeps hold of one while its pool reads it.
 * The desktop's queue is this process's memory (memory-job-queue.ts); a team server's is the task queue
 * in PostgreSQL that every node claims from (shared-job-queue.ts). The runner is the same for both.
 */

export interface JobFailure {
  code: string;
  message: string;
}

/** A job this node took to read: its row (processing, the attempt counted) and the calls of its claim. */
export interface JobClaim {
  readonly job: JobRecord;
  /** Keeps the claim; false once it was taken away (cancelled on any node, or its lease was lost). */
  heartbeat(): Promise<boolean>;
  /** Records pages read where other nodes see them (the runner writes the job's row itself). */
  progress(pagesDone: number, totalPages: number): Promise<void>;
  /** The job was saved, or failed for good with `failure`: the claim ends. */
  finish(failure?: JobFailure): Promise<void>;
  /** Back to the queue after its worker thread failed (the runner set the job queued): the attempt counts. */
  retry(failure: JobFailure): Promise<void>;
  /** Back to the queue as this node stops: the attempt does not count. */
  release(): Promise<void>;
}

/** What next() found: a job to read, or one whose attempts are used up, to fail with `error`. */
export type NextJob = { action: 'run'; claim: JobClaim } | { action: 'fail'; jobId: string; error: JobFailure };

export interface JobQueue {
  /** How often the holder of a claim renews it; 0: never (nobody else could take it). */
  readonly heartbeatMs: number;
  enqueue(jobId: string): Promise<void>;
  /** The next job to read, waiting until there is one; null once the queue closes or `signal` aborts. */
  next(signal: AbortSignal): Promise<NextJob | null>;
  /** Takes the job's work out of the queue; the node reading it hears it through onCancel. */
  cancel(jobId: string): Promise<void>;
  /** Hears of cancelled jobs, whichever node cancelled them. */
  onCancel(fn: (jobId: string) => void): void;
  /** At start: work a previous run left unfinished goes back in the queue (never work a live node holds). */
  resumeUnfinished(): Promise<number>;
  close(): Promise<void>;
}

/** Extractions a job gets: the first, and one retry after its worker thread (or the whole server) died. */
export const MAX_ATTEMPTS = 2;

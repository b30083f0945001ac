import type { JobRecord } from '../../store/repos/jobs-repo.js';
import type { ProviderName } from '../embedding/providers.js';

/**
 * Where the job runner finds the documents to read and the jobs to embed, and how it keeps hold of one while
 * its pool works on it. The desktop's queue is this process's memory (memory-job-queue.ts); a team server's
 * is the task queue in PostgreSQL that every node claims from (shared-job-queue.ts). The runner is the same
 * for both.
 *
 * Embeds: POST /jobs/{id}/embed moves the job to `embedding` and, in the same transaction, hands the queue
 * an order (enqueueEmbed). The desktop runs it at once in this process, as it always has; a team server
 * queues an `embed` task that whichever node runs tasks claims (nextEmbed), so the node that accepted the
 * request need not be the one that embeds, nor live until it ends.
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
  /**
   * The job's reading is committing: called inside the transaction that saves it, so both happen or neither.
   * False when the claim was taken away (the caller then rolls back: the holder saves).
   */
  complete(): Promise<boolean>;
  /** The job failed for good with `failure`: the claim ends. */
  finish(failure: JobFailure): Promise<void>;
  /** Back to the queue after its worker thread failed (the runner set the job queued): the attempt counts. */
  retry(failure: JobFailure): Promise<void>;
  /** Back to the queue as this node stops: the attempt does not count. */
  release(): Promise<void>;
}

/** What next() found: a job to read, or one whose attempts are used up, to fail with `error`. */
export type NextJob = { action: 'run'; claim: JobClaim } | { action: 'fail'; jobId: string; error: JobFailure };

/**
 * What an embed needs besides the job's rows (its plan is made from them when it runs, so an embed taken
 * over from a node that died does what is left, nothing twice): the collection and the model it was
 * accepted with (a hub name already resolved to the local model).
 */
export interface EmbedOrder {
  collection: string;
  provider: ProviderName;
  model: string;
  base_url: string | null;
  /**
   * A remote provider's key from the request. Never stored: on a team server an embed with a key runs on
   * the node the request reached, which holds the key in memory only.
   */
  api_key?: string;
}

/** An embed this node runs: the job (in `embedding`), its order and the calls of its claim. */
export interface EmbedClaim {
  readonly jobId: string;
  readonly order: EmbedOrder;
  /** Keeps the claim; false once it was taken away (cancelled on any node, or its lease was lost). */
  heartbeat(): Promise<boolean>;
  /** Records how far the embed has got where other nodes see it (the runner writes the job's progress itself). */
  progress(embedded: number, total: number): Promise<void>;
  /**
   * The embed is committing: called inside the transaction that marks the job indexed, so both happen or
   * neither. False when the claim was taken away (the transaction is then rolled back: the holder commits).
   */
  complete(): Promise<boolean>;
  /** The embed failed: the claim ends and the job goes back to rest with `failure`. */
  fail(failure: JobFailure): Promise<void>;
  /** This node stops: the embed goes to another node (team) or the job back to rest (desktop). */
  release(): Promise<void>;
}

/** What nextEmbed() found: an embed to run, or one whose attempts are used up, whose job rests with `error`. */
export type NextEmbed = { action: 'run'; claim: EmbedClaim } | { action: 'fail'; jobId: string; error: JobFailure };

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
  /**
   * Queues the embed of a job just moved to `embedding`; called inside that transaction, so a team's task is
   * committed with the move. Answers the claim when this node is to run the embed itself, at once (the
   * desktop; a team node for an order carrying a key), after the transaction; null when any node takes it.
   */
  enqueueEmbed(jobId: string, order: EmbedOrder): Promise<EmbedClaim | null>;
  /** The next queued embed, waiting until there is one; null once the queue closes or `signal` aborts. */
  nextEmbed(signal: AbortSignal): Promise<NextEmbed | null>;
  /**
   * At start: jobs left `embedding` with no embed under way (never one a live node holds) go back to rest,
   * `indexed` or `finalized` as they were before, to be embedded again; how many.
   */
  restInterruptedEmbeds(): Promise<number>;
  close(): Promise<void>;
}

/** Extractions a job gets: the first, and one retry after its worker thread (or the whole server) died. */
export const MAX_ATTEMPTS = 2;

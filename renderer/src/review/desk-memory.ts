import type { ReviewSession } from './review-progress.js';
import { UndoStack } from './undo-stack.js';

/** What the desk keeps of a job while the reviewer is on another screen of it (Audit, Chunks…). */
export interface DeskState {
  undo: UndoStack;
  /** The selected block, to come back to when the address names none. */
  blockId: string | null;
  queueMode: boolean;
  /** The progress bar's count of this session's reviews. */
  session: ReviewSession;
}

/**
 * Per-job desk state for the life of the page, so leaving the desk and coming back keeps the undo
 * history and the place in the list. Bounded: the jobs used least recently are forgotten first.
 */
export class DeskMemory {
  private readonly jobs = new Map<string, DeskState>();
  constructor(private readonly limit = 8) {}

  of(jobId: string): DeskState {
    const state = this.jobs.get(jobId) ?? {
      undo: new UndoStack(),
      blockId: null,
      queueMode: false,
      session: { initial: new Map(), firstReview: null },
    };
    // Map keeps insertion order: re-inserting makes this job the most recent.
    this.jobs.delete(jobId);
    this.jobs.set(jobId, state);
    for (const oldest of this.jobs.keys()) {
      if (this.jobs.size <= this.limit) break;
      this.jobs.delete(oldest);
    }
    return state;
  }

  forget(jobId: string): void {
    this.jobs.delete(jobId);
  }
}

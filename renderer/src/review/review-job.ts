import type { Job } from '../api/types.js';
import { label } from '../ui/format.js';

/**
 * The job the desk reviews, once read: its row labels the toolbar, and its status says whether blocks can
 * still change. It is asked for beside the blocks, so a change asked for before it arrives waits for it.
 */
export class ReviewJob {
  job: Job | undefined;
  readOnly = false;
  private known: (j: Job | null) => void = () => undefined;
  private readonly read = new Promise<Job | null>((resolve) => (this.known = resolve));

  /** The job was read (null: it could not be; the server still refuses what it must). */
  arrived(j: Job | null): void {
    if (j) {
      this.job = j;
      this.readOnly = j.status !== 'ready_for_review';
    }
    this.known(j);
  }

  /** Why a change is refused, once the job is read: its review is closed (finalized, indexed…). */
  async refusal(): Promise<string | null> {
    await this.read;
    return this.readOnly
      ? `This job is ${label(this.job?.status ?? '')}: it is read-only, its blocks can no longer be changed.`
      : null;
  }
}

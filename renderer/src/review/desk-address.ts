/** Writes closer together than this wait for the next one (Chromium limits how often a page may change its history). */
const MIN_INTERVAL_MS = 100;

/**
 * Keeps the selected block in the address, so reload and back return to it. The address is written when
 * the selection changes (at once, or at most every 100 ms while it moves fast), never on a redraw of the
 * same selection: redraws follow every server answer, and a write put off until they stop (as a
 * debounce would) may never happen before the reviewer reloads.
 */
export class DeskAddress {
  private wanted: string | null = null;
  private lastWrite = -Infinity;
  private timer = 0;

  /** `written`: the block the address names already, if any. */
  constructor(
    private readonly jobId: string,
    private written: string | null,
  ) {}

  remember(blockId: string): void {
    this.wanted = blockId;
    if (blockId === this.written || this.timer) return;
    const wait = this.lastWrite + MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) this.write();
    else this.timer = window.setTimeout(() => this.write(), wait);
  }

  private write(): void {
    this.timer = 0;
    if (!this.wanted || this.wanted === this.written) return;
    // A link to another screen changes the address at once but announces it (hashchange) a task later;
    // writing in between would put the desk's address over it, and the shell would mount the desk again.
    if (!location.hash.startsWith(`#/jobs/${encodeURIComponent(this.jobId)}/review`)) return;
    history.replaceState(null, '', `#/jobs/${encodeURIComponent(this.jobId)}/review?block=${encodeURIComponent(this.wanted)}`);
    this.written = this.wanted;
    this.lastWrite = performance.now();
  }

  /** The desk is closing: a write still waiting would put the desk's address over the next screen's. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = 0;
  }
}

/**
 * Chromium ignores a page's history writes past 200 in 10 s. The desk writes at once while it has writes in
 * hand (BURST, one more every MIN_INTERVAL_MS), so a reviewer's separate actions each reach the address
 * before a reload can come; only a selection moving faster than that (a held j) waits for the next one.
 */
const BURST = 50;
const MIN_INTERVAL_MS = 100;

/**
 * Keeps the selected block in the address, so reload and back return to it. The address is written when
 * the selection changes, never on a redraw of the same selection: redraws follow every server answer, and
 * a write put off until they stop (as a debounce would) may never happen before the reviewer reloads.
 */
export class DeskAddress {
  private wanted: string | null = null;
  private tokens = BURST;
  private refilledAt = performance.now();
  private timer = 0;

  /** `written`: the block the address names already, if any. */
  constructor(
    private readonly jobId: string,
    private written: string | null,
  ) {}

  remember(blockId: string): void {
    this.wanted = blockId;
    if (blockId === this.written || this.timer) return;
    const now = performance.now();
    this.tokens = Math.min(BURST, this.tokens + (now - this.refilledAt) / MIN_INTERVAL_MS);
    this.refilledAt = now;
    if (this.tokens >= 1) this.write();
    else this.timer = window.setTimeout(() => this.write(), (1 - this.tokens) * MIN_INTERVAL_MS);
  }

  private write(): void {
    this.timer = 0;
    if (!this.wanted || this.wanted === this.written) return;
    // A link to another screen changes the address at once but announces it (hashchange) a task later;
    // writing in between would put the desk's address over it, and the shell would mount the desk again.
    if (!location.hash.startsWith(`#/jobs/${encodeURIComponent(this.jobId)}/review`)) return;
    history.replaceState(
      null,
      '',
      `#/jobs/${encodeURIComponent(this.jobId)}/review?block=${encodeURIComponent(this.wanted)}`,
    );
    this.written = this.wanted;
    this.tokens -= 1;
  }

  /** The desk is closing: a write still waiting would put the desk's address over the next screen's. */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = 0;
  }
}

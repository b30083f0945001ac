import type { Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import { confirmDialog } from '../ui/dialog.js';
import { errorText, toast } from '../ui/toast.js';
import { patchBlock, type BlockChange } from './block-actions.js';
import { effectiveText, effectiveType, type BlockStore } from './block-store.js';
import type { EditResult } from './block-row.js';
import { sendInBatches, type Progress } from './bulk-review.js';
import type { UndoEntry, UndoStack } from './undo-stack.js';

/** What an edit changes, relative to the block as it is: only fields the reviewer actually changed. */
export function editChange(b: Block, r: EditResult): BlockChange | null {
  const change: BlockChange = {};
  // null (not an empty text) takes a correction back: the block reads as extracted again.
  if (r.text !== effectiveText(b)) change.edited_text = r.text === b.original_text ? null : r.text;
  if (r.type !== effectiveType(b)) change.edited_type = r.type === b.original_type ? null : r.type;
  if (r.note !== b.reviewer_note) change.reviewer_note = r.note;
  return Object.keys(change).length ? change : null;
}

const undoTarget = (b: Block) =>
  b.current_revision_id ? [{ blockId: b.block_id, revisionId: b.current_revision_id }] : [];

/** Review actions on one job's blocks, each recorded for undo. */
export class ReviewCommands {
  private readonly base: string;

  constructor(
    private readonly api: Api,
    private readonly jobId: string,
    private readonly store: BlockStore,
    readonly undo: UndoStack,
    /** Called as bulk work goes on, so counters and progress move while it runs. */
    private readonly onProgress: (label: string, done: number, total: number) => void = () => undefined,
    /** Resolves once every block of the job is in the store. */
    private readonly whenLoaded: () => Promise<void> = () => Promise.resolve(),
  ) {
    this.base = `/jobs/${encodeURIComponent(jobId)}`;
  }

  /** One block change; null when it did not happen (error shown, or the reviewer cancelled a conflict). */
  async change(b: Block, change: BlockChange, label: string): Promise<Block | null> {
    try {
      const after = await patchBlock(this.api, this.jobId, this.store, b, change);
      // Only a change this reviewer made is theirs to undo (not a conflicting reviewer's version they kept).
      if (after?.wrote) this.undo.push({ label, blocks: undoTarget(after.block) });
      return after?.block ?? null;
    } catch (err) {
      toast(`Could not save block ${b.block_id}: ${errorText(err)}`, 'error');
      return null;
    }
  }

  setStatus(b: Block, status: Block['status']): Promise<Block | null> {
    if (b.status === status) return Promise.resolve(b);
    return this.change(b, { status }, status);
  }

  /** `sending` is called once the change is certain to be sent (after any confirmation), before it goes. */
  async saveEdit(b: Block, r: EditResult, sending?: () => void): Promise<Block | null> {
    const change = editChange(b, r);
    if (!change) return b;
    // Blank text drops the block's words from chunks and the export: the reviewer must mean it.
    if (change.edited_text !== undefined && change.edited_text !== null && !change.edited_text.trim()) {
      const blank = await confirmDialog(
        'Save an empty block?',
        'The block will keep no text: its words leave the chunks and the export. To leave it out, reject it (R) instead; to go back to the extracted text, restore it in the editor.',
        'Save empty',
      );
      if (!blank) return null;
      change.allow_empty = true;
    }
    sending?.();
    return this.change(b, change, 'edit');
  }

  private progress(label: string): Progress {
    return (done, total) => this.onProgress(label, done, total);
  }

  /**
   * Approves the pending blocks given, as one undoable action, through the bulk route (one request per
   * thousand blocks). A block another reviewer changed meanwhile is left as they made it and counted.
   */
  async approveMany(indices: number[], label: string): Promise<{ approved: number; skipped: number }> {
    const pending = indices.map((i) => this.store.at(i)).filter((b): b is Block => b?.status === 'pending');
    const changed: Block[] = [];
    let skipped = 0;
    try {
      ({ skipped } = await sendInBatches(
        this.api,
        `${this.base}/blocks/review`,
        pending.map((b) => ({ block_id: b.block_id, version: b.version })),
        (items) => ({ status: 'approved', items }),
        this.store,
        this.progress(`Approving (${label})`),
        changed,
      ));
    } finally {
      // Batches that went through are undoable even when a later one failed.
      this.undo.push({ label, blocks: changed.flatMap(undoTarget) });
    }
    if (skipped)
      toast(`${skipped} block(s) were changed by someone else meanwhile and were left as they are.`, 'error');
    return { approved: changed.length, skipped };
  }

  async approveAllPending(): Promise<void> {
    const all: number[] = [];
    for (let i = 0; i < this.store.total; i++) if (this.store.at(i)?.status === 'pending') all.push(i);
    if (!all.length) return void toast('Nothing is pending.');
    if (
      !(await confirmDialog(
        'Approve every pending block?',
        `${all.length} pending block(s) of this job will be approved.`,
        'Approve all',
      ))
    )
      return;
    const { approved } = await this.approveMany(all, 'approve all');
    toast(`Approved ${approved} block(s).`);
  }

  /**
   * Undoes the newest action: the server returns each block to exactly what it was before (status, text,
   * type, note). A block someone else changed since is left as it is and counted. Returns the action
   * undone, or null when there was none or the undo failed.
   */
  async undoLast(): Promise<UndoEntry | null> {
    const entry = this.undo.pop();
    if (!entry) return null;
    const current = (blockId: string) => {
      const i = this.store.indexOf(blockId);
      return i === undefined ? undefined : this.store.at(i);
    };
    try {
      // The history outlives the desk (it is kept per job while other screens are shown): opened again,
      // the desk may not have loaded every block the action touched yet.
      if (entry.blocks.some((t) => !current(t.blockId))) await this.whenLoaded();
      const items = entry.blocks.flatMap((t) => {
        const cur = current(t.blockId);
        return cur ? [{ block_id: cur.block_id, version: cur.version, revision_id: t.revisionId }] : [];
      });
      const { skipped } = await sendInBatches(
        this.api,
        `${this.base}/blocks/undo`,
        items,
        (batch) => ({ items: batch }),
        this.store,
        this.progress(`Undoing ${entry.label}`),
      );
      if (skipped) toast(`${skipped} block(s) were changed since by someone else and were left as they are.`, 'error');
    } catch (err) {
      this.undo.push(entry);
      toast(`Could not undo ${entry.label}: ${errorText(err)}`, 'error');
      return null;
    }
    return entry;
  }
}

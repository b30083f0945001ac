import type { Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import { confirmDialog } from '../ui/dialog.js';
import { errorText, toast } from '../ui/toast.js';
import { patchBlock, type BlockChange } from './block-actions.js';
import { effectiveText, effectiveType, type BlockStore } from './block-store.js';
import type { EditResult } from './block-row.js';
import { beforeOf, type BlockBefore, type UndoStack } from './undo-stack.js';

/** Requests in flight for bulk actions: enough to overlap round trips, few enough to leave the server room. */
const BULK_CONCURRENCY = 4;

async function eachLimited<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, queue.length) }, worker));
}

/** What an edit changes, relative to the block as it is: only fields the reviewer actually changed. */
export function editChange(b: Block, r: EditResult): BlockChange | null {
  const change: BlockChange = {};
  if (r.text !== effectiveText(b)) change.edited_text = r.text === b.text ? null : r.text;
  if (r.type !== effectiveType(b)) change.edited_type = r.type === b.type ? null : r.type;
  if (r.note !== b.reviewer_note) change.reviewer_note = r.note;
  return Object.keys(change).length ? change : null;
}

/** The PATCH that puts a block back to what it held before. */
const restoreChange = (before: BlockBefore): BlockChange => ({
  status: before.status,
  edited_text: before.edited_text,
  edited_type: before.edited_type,
  reviewer_note: before.reviewer_note,
});

/** Review actions on one job's blocks, each recorded for undo. */
export class ReviewCommands {
  constructor(
    private readonly api: Api,
    private readonly jobId: string,
    private readonly store: BlockStore,
    readonly undo: UndoStack,
  ) {}

  /** One block change; null when it did not happen (error shown, or the reviewer cancelled a conflict). */
  async change(b: Block, change: BlockChange, label: string): Promise<Block | null> {
    try {
      const after = await patchBlock(this.api, this.jobId, this.store, b, change);
      // Undo restores what this reviewer saw before acting, not what a conflicting reviewer wrote.
      if (after && after.version > b.version) this.undo.push({ label, blocks: [beforeOf(b)] });
      return after;
    } catch (err) {
      toast(`Could not save block ${b.block_id}: ${errorText(err)}`, 'error');
      return null;
    }
  }

  setStatus(b: Block, status: Block['status']): Promise<Block | null> {
    if (b.status === status) return Promise.resolve(b);
    return this.change(b, { status }, status);
  }

  async saveEdit(b: Block, r: EditResult): Promise<Block | null> {
    const change = editChange(b, r);
    return change ? this.change(b, change, 'edit') : b;
  }

  /**
   * Approves the pending blocks given, as one undoable action. A block another reviewer changed meanwhile
   * is left as they made it and counted, rather than raising a dialog per block.
   */
  async approveMany(indices: number[], label: string): Promise<{ approved: number; skipped: number }> {
    const pending = indices.map((i) => this.store.at(i)).filter((b): b is Block => b?.status === 'pending');
    const befores: BlockBefore[] = [];
    let skipped = 0;
    await eachLimited(pending, async (b) => {
      try {
        const after = await patchBlock(this.api, this.jobId, this.store, b, { status: 'approved' }, 'skip');
        if (after?.status === 'approved' && after.version === b.version + 1) befores.push(beforeOf(b));
        else skipped += 1;
      } catch {
        skipped += 1;
      }
    });
    this.undo.push({ label, blocks: befores });
    if (skipped) toast(`${skipped} block(s) were changed by someone else or failed and were left as they are.`, 'error');
    return { approved: befores.length, skipped };
  }

  async approveAllPending(): Promise<void> {
    const all: number[] = [];
    for (let i = 0; i < this.store.total; i++) if (this.store.at(i)?.status === 'pending') all.push(i);
    if (!all.length) return void toast('Nothing is pending.');
    if (!(await confirmDialog('Approve every pending block?', `${all.length} pending block(s) of this job will be approved.`, 'Approve all'))) return;
    const { approved } = await this.approveMany(all, 'approve all');
    toast(`Approved ${approved} block(s).`);
  }

  /** Undoes the newest action: each block is PATCHed back at its current version (conflicts ask). */
  async undoLast(): Promise<string | null> {
    const entry = this.undo.pop();
    if (!entry) return null;
    await eachLimited(entry.blocks, async (before) => {
      const i = this.store.indexOf(before.blockId);
      const cur = i === undefined ? undefined : this.store.at(i);
      if (!cur) return;
      try {
        await patchBlock(this.api, this.jobId, this.store, cur, restoreChange(before), entry.blocks.length > 1 ? 'skip' : 'ask');
      } catch (err) {
        toast(`Could not undo block ${before.blockId}: ${errorText(err)}`, 'error');
      }
    });
    return entry.label;
  }
}

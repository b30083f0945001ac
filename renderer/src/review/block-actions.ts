import { ApiError, type Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import { changeAuthor } from './conflict-author.js';
import { conflictDialog, type ConflictSide } from './conflict-dialog.js';
import { effectiveText, effectiveType, type BlockStore } from './block-store.js';

/** The fields of a block PATCH besides its version. */
export interface BlockChange {
  status?: Block['status'];
  edited_text?: string | null;
  edited_type?: Block['edited_type'];
  reviewer_note?: string | null;
  /** Keep an empty edited_text: the reviewer confirmed blanking the block. */
  allow_empty?: boolean;
}

/** The block as it would look with `change` applied, for showing "yours" in a conflict. */
function sideWith(b: Block, change: BlockChange): ConflictSide {
  const text = change.edited_text !== undefined ? (change.edited_text ?? b.original_text) : effectiveText(b);
  const type = change.edited_type !== undefined ? (change.edited_type ?? b.original_type) : effectiveType(b);
  const edited = change.edited_text !== undefined || change.edited_type !== undefined;
  return {
    status: change.status ?? (edited ? 'edited' : b.status),
    type,
    text,
    note: change.reviewer_note !== undefined ? change.reviewer_note : b.reviewer_note,
  };
}

const sideOf = (b: Block): ConflictSide => ({
  status: b.status,
  type: effectiveType(b),
  text: effectiveText(b),
  note: b.reviewer_note,
});

function conflictCurrent(err: unknown): Block | undefined {
  if (!(err instanceof ApiError) || err.code !== 'VERSION_CONFLICT') return undefined;
  return (err.details as { current?: Block } | undefined)?.current;
}

export type ConflictMode = 'ask' | 'skip';

/** The block now current, and whether this reviewer's change is what made it so (not a version kept from someone else). */
export interface PatchOutcome {
  block: Block;
  wrote: boolean;
}

/**
 * PATCHes one block at the version the reviewer saw. On 409 with the current block, `ask` opens the
 * conflict dialog (keep mine re-sends at the current version; keep theirs takes theirs; merge sends the
 * merged text; cancel sends nothing), `skip` takes theirs without asking (bulk actions must not raise a
 * dialog per block). Returns the block that is now current, or null when the reviewer cancelled. The
 * store always ends up holding the server's latest copy.
 */
export async function patchBlock(
  api: Api,
  jobId: string,
  store: BlockStore,
  block: Block,
  change: BlockChange,
  mode: ConflictMode = 'ask',
): Promise<PatchOutcome | null> {
  const path = `/jobs/${encodeURIComponent(jobId)}/blocks/${encodeURIComponent(block.block_id)}`;
  try {
    const updated = await api.send<Block>('PATCH', path, { version: block.version, ...change });
    store.replace(updated);
    return { block: updated, wrote: true };
  } catch (err) {
    const current = conflictCurrent(err);
    if (!current) throw err;
    store.replace(current);
    if (mode === 'skip') return { block: current, wrote: false };
    const choice = await conflictDialog({
      what: `Block ${block.block_id}`,
      base: effectiveText(block),
      mine: sideWith(block, change),
      theirs: sideOf(current),
      theirVersion: current.version,
      author: await changeAuthor(api, jobId, current.block_id, current.current_revision_id),
    });
    switch (choice.kind) {
      case 'cancel':
        return null;
      case 'theirs':
        return { block: current, wrote: false };
      case 'mine':
        return patchBlock(api, jobId, store, current, change, mode);
      case 'merge': {
        const textChanged = choice.text !== effectiveText(current);
        const merged: BlockChange = { reviewer_note: choice.note };
        if (textChanged) merged.edited_text = choice.text === current.original_text ? null : choice.text;
        if (change.edited_type !== undefined) merged.edited_type = change.edited_type;
        if (change.status && change.status !== 'edited') merged.status = change.status;
        return patchBlock(api, jobId, store, current, merged, mode);
      }
    }
  }
}

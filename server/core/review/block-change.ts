import type { BlockChanges, BlockRecord } from '../../store/repos/jobs-repo.js';
import type { NewRevision } from '../../store/repos/revisions-repo.js';
import type { Repositories } from '../../store/store.js';
import { AppError } from '../errors.js';
import { reviewAction } from '../audit/actions.js';
import { nextStatus } from './review-state.js';

/** The part of a block a reviewer changes. */
export type BlockState = Pick<BlockRecord, 'status' | 'edited_text' | 'edited_type' | 'reviewer_note'>;

/** A PATCH's fields besides the version. */
export interface BlockChange {
  status?: string;
  edited_text?: string | null;
  edited_type?: string | null;
  reviewer_note?: string | null;
  /** An empty edited_text blanks the block only when the reviewer says so. */
  allow_empty?: boolean;
}

export const stateOf = (b: BlockState): BlockState => ({
  status: b.status,
  edited_text: b.edited_text,
  edited_type: b.edited_type,
  reviewer_note: b.reviewer_note,
});

/** A block's reviewable state as the audit records it in `before` and `after`. */
export const snapshotOf = (s: BlockState, version: number) => ({ ...stateOf(s), version });

/** The state recorded in a revision's snapshot, for an undo; null when the snapshot is not a block's. */
export function stateFromSnapshot(snap: Record<string, unknown> | null): BlockState | null {
  if (!snap || typeof snap.status !== 'string') return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    status: snap.status,
    edited_text: text(snap.edited_text),
    edited_type: text(snap.edited_type),
    reviewer_note: text(snap.reviewer_note),
  };
}

export const sameState = (a: BlockState, b: BlockState): boolean =>
  a.status === b.status &&
  a.edited_text === b.edited_text &&
  a.edited_type === b.edited_type &&
  a.reviewer_note === b.reviewer_note;

/**
 * edited_text as stored. null, or the machine's own text sent back, means "no edit": the block reads as
 * extracted. Blank text would silently drop a block's words from chunks and the export, so it is refused
 * unless the reviewer asked for it explicitly (rejecting is the usual way to leave a block out).
 */
export function reviewedText(text: string | null, original: string, allowEmpty: boolean | undefined): string | null {
  if (text === null || text === original) return null;
  if (!text.trim() && !allowEmpty) {
    throw new AppError(
      'EMPTY_TEXT',
      'edited_text is empty: send null to go back to the extracted text, reject the block to leave it out, or send allow_empty: true to keep it blank',
      {
        field: 'edited_text',
      },
    );
  }
  return text;
}

/** The state a PATCH asks for, from the block as it is. */
export function patchedState(cur: BlockRecord, change: BlockChange): BlockState {
  const editedText =
    change.edited_text !== undefined ? reviewedText(change.edited_text, cur.text, change.allow_empty) : cur.edited_text;
  const editedType =
    change.edited_type !== undefined ? (change.edited_type === cur.type ? null : change.edited_type) : cur.edited_type;
  const edited = change.edited_text !== undefined || change.edited_type !== undefined;
  const status = nextStatus(cur.status, change.status, edited, editedText !== null || editedType !== null);
  if (status === 'edited' && editedText === null && editedType === null) {
    throw new AppError(
      'VALIDATION_FAILED',
      'status "edited" needs edited_text or edited_type that differ from the extracted block',
    );
  }
  return {
    status,
    edited_text: editedText,
    edited_type: editedType,
    reviewer_note: change.reviewer_note !== undefined ? change.reviewer_note : cur.reviewer_note,
  };
}

/** What a block contributes to chunks: its effective text and type, or nothing when rejected. */
const contribution = (type: string, text: string, s: BlockState) =>
  s.status === 'rejected' ? null : `${s.edited_type ?? type}\u0000${s.edited_text ?? text}`;

export interface WriteOptions {
  reviewer: string;
  now: string;
  /** The audit action; by default the status the change leaves (approved, edited, pending…). */
  action?: string;
  undoesRevisionId?: string;
}

/** The repositories a block change writes through: a transaction's. */
export type BlockTx = Pick<Repositories, 'blocks' | 'revisions'>;

/**
 * Moves one block to `next` inside the caller's transaction: one revision, the row at version + 1.
 * Returns the updated block and whether its contribution to chunks changed (they must be marked stale).
 */
export async function writeBlockState(
  tx: BlockTx,
  cur: BlockRecord,
  next: BlockState,
  o: WriteOptions,
): Promise<{ row: BlockRecord; contentChanged: boolean }> {
  const prev = stateOf(cur);
  const { row } = await writeBlockVersion(
    tx,
    cur,
    stateOf(next),
    {
      action: o.action ?? reviewAction(next.status),
      before: snapshotOf(prev, cur.version),
      after: snapshotOf(next, cur.version + 1),
      edited_text: next.edited_text,
      edited_type: next.edited_type,
      reviewer_note: next.reviewer_note,
      undoes_revision_id: o.undoesRevisionId ?? null,
    },
    o,
  );
  return { row, contentChanged: contribution(cur.type, cur.text, prev) !== contribution(cur.type, cur.text, next) };
}

/** What a block version's revision records beyond whose it is, who wrote it and when. */
export type BlockRevision = Omit<
  NewRevision,
  'job_id' | 'entity_type' | 'entity_id' | 'previous_revision_id' | 'reviewer_id' | 'timestamp'
>;

/**
 * The one writer of a block's next version (review changes, split, merge, move): its revision, then `set`
 * on the row at version + 1, guarded by the version read (one UPDATE … WHERE version = ?), so a writer
 * that got there first makes it a VERSION_CONFLICT (and the caller's transaction rolls back).
 * `original_text` defaults to the block's text.
 */
export async function writeBlockVersion(
  tx: BlockTx,
  cur: BlockRecord,
  set: BlockChanges,
  revision: BlockRevision,
  o: { reviewer: string; now: string },
): Promise<{ row: BlockRecord; revisionId: string }> {
  const revisionId = await tx.revisions.insert({
    job_id: cur.job_id,
    entity_type: 'block',
    entity_id: cur.block_id,
    previous_revision_id: cur.current_revision_id,
    original_text: cur.text,
    reviewer_id: o.reviewer,
    timestamp: o.now,
    ...revision,
  });
  const row = await tx.blocks.update(
    cur.job_id,
    cur.block_id,
    { ...set, version: cur.version + 1, current_revision_id: revisionId, updated_at: o.now },
    cur.version,
  );
  if (!row) throw new AppError('VERSION_CONFLICT', `block ${cur.block_id} changed meanwhile`);
  return { row, revisionId };
}

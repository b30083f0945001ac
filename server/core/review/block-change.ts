import { and, eq } from 'drizzle-orm';
import { blocks } from '../../../drizzle/schema.js';
import type { DbLike } from '../../store/db.js';
import { writeRevision, type RevisionInput } from '../audit/revisions.js';
import { AppError } from '../errors.js';
import { reviewAction } from '../audit/actions.js';
import { nextStatus } from './review-state.js';

export type BlockRow = typeof blocks.$inferSelect;

/** The part of a block a reviewer changes. */
export interface BlockState {
  status: string;
  editedText: string | null;
  editedType: string | null;
  reviewerNote: string | null;
}

/** A PATCH's fields besides the version. */
export interface BlockChange {
  status?: string;
  edited_text?: string | null;
  edited_type?: string | null;
  reviewer_note?: string | null;
  /** An empty edited_text blanks the block only when the reviewer says so. */
  allow_empty?: boolean;
}

export const stateOf = (b: BlockRow): BlockState => ({ status: b.status, editedText: b.editedText, editedType: b.editedType, reviewerNote: b.reviewerNote });

/** A block's reviewable state as the audit records it in `before` and `after`. */
export const snapshotOf = (s: BlockState, version: number) => ({
  status: s.status,
  edited_text: s.editedText,
  edited_type: s.editedType,
  reviewer_note: s.reviewerNote,
  version,
});

/** The state recorded in a revision's snapshot, for an undo; null when the snapshot is not a block's. */
export function stateFromSnapshot(snap: Record<string, unknown> | null): BlockState | null {
  if (!snap || typeof snap.status !== 'string') return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { status: snap.status, editedText: text(snap.edited_text), editedType: text(snap.edited_type), reviewerNote: text(snap.reviewer_note) };
}

export const sameState = (a: BlockState, b: BlockState): boolean =>
  a.status === b.status && a.editedText === b.editedText && a.editedType === b.editedType && a.reviewerNote === b.reviewerNote;

/**
 * edited_text as stored. null, or the machine's own text sent back, means "no edit": the block reads as
 * extracted. Blank text would silently drop a block's words from chunks and the export, so it is refused
 * unless the reviewer asked for it explicitly (rejecting is the usual way to leave a block out).
 */
export function reviewedText(text: string | null, original: string, allowEmpty: boolean | undefined): string | null {
  if (text === null || text === original) return null;
  if (!text.trim() && !allowEmpty) {
    throw new AppError('EMPTY_TEXT', 'edited_text is empty: send null to go back to the extracted text, reject the block to leave it out, or send allow_empty: true to keep it blank', {
      field: 'edited_text',
    });
  }
  return text;
}

/** The state a PATCH asks for, from the block as it is. */
export function patchedState(cur: BlockRow, change: BlockChange): BlockState {
  const editedText = change.edited_text !== undefined ? reviewedText(change.edited_text, cur.text, change.allow_empty) : cur.editedText;
  const editedType = change.edited_type !== undefined ? (change.edited_type === cur.type ? null : change.edited_type) : cur.editedType;
  const edited = change.edited_text !== undefined || change.edited_type !== undefined;
  const status = nextStatus(cur.status, change.status, edited, editedText !== null || editedType !== null);
  if (status === 'edited' && editedText === null && editedType === null) {
    throw new AppError('VALIDATION_FAILED', 'status "edited" needs edited_text or edited_type that differ from the extracted block');
  }
  return { status, editedText, editedType, reviewerNote: change.reviewer_note !== undefined ? change.reviewer_note : cur.reviewerNote };
}

/** What a block contributes to chunks: its effective text and type, or nothing when rejected. */
const contribution = (type: string, text: string, s: BlockState) => (s.status === 'rejected' ? null : `${s.editedType ?? type}\u0000${s.editedText ?? text}`);

export interface WriteOptions {
  reviewer: string;
  now: string;
  /** The audit action; by default the status the change leaves (approved, edited, pending…). */
  action?: string;
  undoesRevisionId?: string;
}

/**
 * Moves one block to `next` inside the caller's transaction: one revision, the row at version + 1.
 * Returns the updated row and whether its contribution to chunks changed (they must be marked stale).
 */
export function writeBlockState(tx: DbLike, cur: BlockRow, next: BlockState, o: WriteOptions): { row: BlockRow; contentChanged: boolean } {
  const prev = stateOf(cur);
  const { row } = writeBlockVersion(
    tx,
    cur,
    next,
    {
      action: o.action ?? reviewAction(next.status),
      before: snapshotOf(prev, cur.version),
      after: snapshotOf(next, cur.version + 1),
      editedText: next.editedText,
      editedType: next.editedType,
      reviewerNote: next.reviewerNote,
      undoesRevisionId: o.undoesRevisionId ?? null,
    },
    o,
  );
  return { row, contentChanged: contribution(cur.type, cur.text, prev) !== contribution(cur.type, cur.text, next) };
}

/** What a block version's revision records beyond whose it is, who wrote it and when (see writeRevision). */
export type BlockRevision = Omit<RevisionInput, 'jobId' | 'entityType' | 'entityId' | 'previousRevisionId' | 'reviewerId' | 'timestamp'>;

/**
 * The one writer of a block's next version (review changes, split, merge, move): its revision, then `set`
 * on the row at version + 1, guarded by the version read, so a writer that got there first makes it a
 * VERSION_CONFLICT (and the caller's transaction rolls back). `originalText` defaults to the block's text.
 */
export function writeBlockVersion(
  tx: DbLike,
  cur: BlockRow,
  set: Partial<BlockRow>,
  revision: BlockRevision,
  o: { reviewer: string; now: string },
): { row: BlockRow; revisionId: string } {
  const revisionId = writeRevision(tx, {
    jobId: cur.jobId,
    entityType: 'block',
    entityId: cur.blockId,
    previousRevisionId: cur.currentRevisionId,
    originalText: cur.text,
    reviewerId: o.reviewer,
    timestamp: o.now,
    ...revision,
  });
  const row = tx
    .update(blocks)
    .set({ ...set, version: cur.version + 1, currentRevisionId: revisionId, updatedAt: o.now })
    .where(and(eq(blocks.jobId, cur.jobId), eq(blocks.blockId, cur.blockId), eq(blocks.version, cur.version)))
    .returning()
    .get();
  if (!row) throw new AppError('VERSION_CONFLICT', `block ${cur.blockId} changed meanwhile`);
  return { row, revisionId };
}

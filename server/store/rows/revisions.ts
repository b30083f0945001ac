/** Rows of the revisions table <-> the audit's records, for both backends (same columns under the same names). */
import type { revisions } from '../../../drizzle/schema.js';
import type { NewRevision, RevisionChanges, RevisionView } from '../repos/revisions-repo.js';

type RevisionRow = typeof revisions.$inferSelect;

export const revisionView = (row: RevisionRow): RevisionView => ({
  revision_id: row.revisionId,
  entity_type: row.entityType as RevisionView['entity_type'],
  entity_id: row.entityId,
  previous_revision_id: row.previousRevisionId,
  action: row.action,
  before: row.before,
  after: row.after,
  original_text: row.originalText,
  edited_text: row.editedText,
  edited_type: row.editedType,
  reviewer_id: row.reviewerId,
  reviewer_note: row.reviewerNote,
  timestamp: row.timestamp,
  undoes_revision_id: row.undoesRevisionId,
});

/** A new revision's columns but its id and its place in the order, which each backend sets. */
export const revisionValues = (r: NewRevision) => ({
  jobId: r.job_id,
  entityType: r.entity_type,
  entityId: r.entity_id,
  previousRevisionId: r.previous_revision_id,
  action: r.action,
  before: r.before,
  after: r.after,
  originalText: r.original_text ?? null,
  editedText: r.edited_text ?? null,
  editedType: r.edited_type ?? null,
  reviewerId: r.reviewer_id,
  reviewerNote: r.reviewer_note ?? null,
  timestamp: r.timestamp,
  undoesRevisionId: r.undoes_revision_id ?? null,
});

/** What a purge rewrites, as columns (those not given are left as they are). */
export const revisionSet = (set: RevisionChanges) => ({
  before: set.before,
  after: set.after,
  originalText: set.original_text,
  editedText: set.edited_text,
  reviewerNote: set.reviewer_note,
});

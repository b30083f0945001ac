/** The audit trail: one revision per change of a block, chunk or job, in the order they were written. */
import type { Static } from 'typebox';
import type { Revision } from '../../schemas/jobs.js';
import type { PageOf, Paging } from './paging.js';

/** A revision as the API answers it. */
export type RevisionView = Static<typeof Revision>;

export type NewRevision = Pick<
  RevisionView,
  'entity_type' | 'entity_id' | 'previous_revision_id' | 'action' | 'before' | 'after' | 'reviewer_id' | 'timestamp'
> &
  Partial<
    Pick<RevisionView, 'original_text' | 'edited_text' | 'edited_type' | 'reviewer_note' | 'undoes_revision_id'>
  > & { job_id: string };

/** What a purge may rewrite of a revision. */
export type RevisionChanges = Partial<
  Pick<RevisionView, 'before' | 'after' | 'original_text' | 'edited_text' | 'reviewer_note'>
>;

/** The audit trail's filters; every one given must hold. */
export interface AuditFilter {
  entity_type?: string;
  entity_id?: string;
  /** In today's words (core/audit/actions.ts: currentActionName). */
  action?: string;
  /** Who made the change (the exact name). */
  reviewer?: string;
  /** Changes to blocks on this page and to chunks spanning it. */
  page?: number;
  /** Words in the text before or after, the note or the item's id, ignoring case. */
  q?: string;
}

export interface RevisionsRepo {
  /** Writes one revision (next in order) and returns its id. */
  insert(r: NewRevision): Promise<string>;
  /** Newest first. */
  list(jobId: string, q: AuditFilter & Paging): Promise<PageOf<RevisionView>>;
  /** The job's whole trail, oldest first. */
  all(jobId: string): Promise<RevisionView[]>;
  /** The job's revisions of these ids that exist. */
  getMany(jobId: string, revisionIds: readonly string[]): Promise<RevisionView[]>;
  /** The revisions, oldest first and undos left out, whose snapshot (after, else before) carries `structure.group` = group. */
  structureGroup(jobId: string, group: string): Promise<RevisionView[]>;
  update(revisionId: string, set: RevisionChanges): Promise<void>;
}

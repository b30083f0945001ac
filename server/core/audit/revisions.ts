import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { revisions } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../../store/db.js';
import { revisionView } from '../views.js';
import { paginate } from '../../store/paginate.js';
import { currentActionName } from './actions.js';
import { auditFilterConditions, type AuditFilters } from './audit-filters.js';

export interface RevisionInput {
  jobId: string;
  entityType: 'block' | 'chunk' | 'job';
  entityId: string;
  previousRevisionId: string | null;
  /** One of AUDIT_ACTIONS (./actions.ts), or a structural change's own name. */
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  originalText?: string | null;
  editedText?: string | null;
  editedType?: string | null;
  reviewerId: string;
  reviewerNote?: string | null;
  timestamp: string;
  /** Set on an undo: the revision whose change it takes back. */
  undoesRevisionId?: string | null;
}

/** Writes one audit revision; call inside the transaction that makes the change it records. */
export function writeRevision(db: DbLike, r: RevisionInput): string {
  const revisionId = randomUUID();
  db.insert(revisions)
    .values({
      revisionId,
      seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM revisions)`,
      jobId: r.jobId,
      entityType: r.entityType,
      entityId: r.entityId,
      previousRevisionId: r.previousRevisionId,
      action: r.action,
      before: r.before,
      after: r.after,
      originalText: r.originalText ?? null,
      editedText: r.editedText ?? null,
      editedType: r.editedType ?? null,
      reviewerId: r.reviewerId,
      reviewerNote: r.reviewerNote ?? null,
      timestamp: r.timestamp,
      undoesRevisionId: r.undoesRevisionId ?? null,
    })
    .run();
  return revisionId;
}

export interface AuditQuery extends AuditFilters {
  entity_type?: string;
  entity_id?: string;
  action?: string;
  skip: number;
  limit: number;
}

/** The trail of one job, newest first. */
export function listRevisions(db: Db, jobId: string, q: AuditQuery) {
  const conds: SQL[] = [eq(revisions.jobId, jobId)];
  if (q.entity_type) conds.push(eq(revisions.entityType, q.entity_type));
  if (q.entity_id) conds.push(eq(revisions.entityId, q.entity_id));
  if (q.action) conds.push(eq(revisions.action, currentActionName(q.action)));
  conds.push(...auditFilterConditions(jobId, q));
  const where = and(...conds);
  return paginate(db, revisions, where, [desc(revisions.seq)], q, revisionView);
}

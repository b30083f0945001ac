import type { Paging } from '../../store/repos/paging.js';
import type { AuditFilter } from '../../store/repos/revisions-repo.js';
import type { Repositories } from '../../store/store.js';
import { currentActionName } from './actions.js';

export interface AuditQuery extends AuditFilter, Paging {}

/** The trail of one job, newest first; an action may be named in Lectern's earlier words. */
export function listRevisions(repos: Pick<Repositories, 'revisions'>, jobId: string, q: AuditQuery) {
  return repos.revisions.list(jobId, { ...q, action: q.action ? currentActionName(q.action) : undefined });
}

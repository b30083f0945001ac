import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, revisions } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import { auditConditions, structureGroupWhere } from '../queries/revisions.js';
import type { AuditFilter, RevisionChanges, RevisionsRepo } from '../repos/revisions-repo.js';
import { revisionSet, revisionValues, revisionView } from '../rows/revisions.js';
import type { TxGate } from './tx-gate.js';

const conditions = (jobId: string, f: AuditFilter): SQL[] =>
  auditConditions(
    { revisions, blocks, chunks },
    {
      chunkOnPage: (page) =>
        sql`EXISTS (SELECT 1 FROM json_each(${chunks.pageNumbers}) WHERE json_each.value = ${page})`,
      like: 'LIKE',
    },
    jobId,
    f,
  );

/** The structure group a revision belongs to, read from its JSON: the state after it, else (a removal) before it. */
const groupOfRevision = sql`json_extract(COALESCE(${revisions.after}, ${revisions.before}), '$.structure.group')`;

export function sqliteRevisions(db: Db, gate: TxGate): RevisionsRepo {
  return {
    insert: (r) =>
      gate.call(() => {
        const revisionId = randomUUID();
        db.insert(revisions)
          .values({
            revisionId,
            // Monotonic within the database, so "newest first" is exact even within one millisecond.
            seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM revisions)`,
            ...revisionValues(r),
          })
          .run();
        return revisionId;
      }),

    list: (jobId, q) =>
      gate.call(() => paginate(db, revisions, and(...conditions(jobId, q)), [desc(revisions.seq)], q, revisionView)),

    all: (jobId) =>
      gate.call(() =>
        db
          .select()
          .from(revisions)
          .where(eq(revisions.jobId, jobId))
          .orderBy(asc(revisions.seq))
          .all()
          .map(revisionView),
      ),

    getMany: (jobId, revisionIds) =>
      gate.call(() =>
        revisionIds.length
          ? db
              .select()
              .from(revisions)
              .where(
                and(
                  eq(revisions.jobId, jobId),
                  sql`${revisions.revisionId} IN (SELECT value FROM json_each(${JSON.stringify(revisionIds)}))`,
                ),
              )
              .all()
              .map(revisionView)
          : [],
      ),

    structureGroup: (jobId, group) =>
      gate.call(() =>
        db
          .select()
          .from(revisions)
          .where(structureGroupWhere(revisions, jobId, groupOfRevision, group))
          .orderBy(asc(revisions.seq))
          .all()
          .map(revisionView),
      ),

    update: (revisionId, set: RevisionChanges) =>
      gate.call(() => {
        db.update(revisions).set(revisionSet(set)).where(eq(revisions.revisionId, revisionId)).run();
      }),
  };
}

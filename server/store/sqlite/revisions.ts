import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, ne, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, revisions } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { paginate } from '../paginate.js';
import type { AuditFilter, RevisionChanges, RevisionsRepo } from '../repos/revisions-repo.js';
import { revisionSet, revisionValues, revisionView } from '../rows/revisions.js';
import type { TxGate } from './tx-gate.js';

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A page has no column of its own on a revision: it is the page of the block changed, or any page of the
 * chunk changed (a chunk can span several).
 */
function conditions(jobId: string, f: AuditFilter): SQL[] {
  const conds: SQL[] = [eq(revisions.jobId, jobId)];
  if (f.entity_type) conds.push(eq(revisions.entityType, f.entity_type));
  if (f.entity_id) conds.push(eq(revisions.entityId, f.entity_id));
  if (f.action) conds.push(eq(revisions.action, f.action));
  if (f.reviewer) conds.push(eq(revisions.reviewerId, f.reviewer));
  if (f.page !== undefined) {
    conds.push(sql`(
      (${revisions.entityType} = 'block' AND ${revisions.entityId} IN
        (SELECT ${blocks.blockId} FROM ${blocks} WHERE ${blocks.jobId} = ${jobId} AND ${blocks.page} = ${f.page}))
      OR (${revisions.entityType} = 'chunk' AND ${revisions.entityId} IN
        (SELECT ${chunks.chunkId} FROM ${chunks} WHERE ${chunks.jobId} = ${jobId}
          AND EXISTS (SELECT 1 FROM json_each(${chunks.pageNumbers}) WHERE json_each.value = ${f.page}))))`);
  }
  const words = f.q?.trim();
  if (words) {
    const pattern = `%${likeLiteral(words)}%`;
    // LIKE is case-insensitive for ASCII in SQLite, as a person searching expects.
    conds.push(sql`(${revisions.originalText} LIKE ${pattern} ESCAPE '\\' OR ${revisions.editedText} LIKE ${pattern} ESCAPE '\\'
      OR ${revisions.reviewerNote} LIKE ${pattern} ESCAPE '\\' OR ${revisions.entityId} LIKE ${pattern} ESCAPE '\\')`);
  }
  return conds;
}

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
          .where(
            and(
              eq(revisions.jobId, jobId),
              ne(revisions.action, 'undo'),
              sql`json_extract(COALESCE(${revisions.after}, ${revisions.before}), '$.structure.group') = ${group}`,
            ),
          )
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

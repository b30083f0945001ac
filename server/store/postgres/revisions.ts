import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, revisions } from '../../../drizzle/pg/schema.js';
import type { AuditFilter, RevisionsRepo } from '../repos/revisions-repo.js';
import { revisionSet, revisionValues, revisionView } from '../rows/revisions.js';
import type { PgContext } from './context.js';

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** As in the SQLite store; ILIKE ignores case as SQLite's LIKE does for ASCII (and beyond it). */
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
        (SELECT ${chunks.chunkId} FROM ${chunks} WHERE ${chunks.jobId} = ${jobId} AND ${chunks.pageNumbers} @> ${JSON.stringify([f.page])}::jsonb)))`);
  }
  const words = f.q?.trim();
  if (words) {
    const pattern = `%${likeLiteral(words)}%`;
    conds.push(sql`(${revisions.originalText} ILIKE ${pattern} ESCAPE '\\' OR ${revisions.editedText} ILIKE ${pattern} ESCAPE '\\'
      OR ${revisions.reviewerNote} ILIKE ${pattern} ESCAPE '\\' OR ${revisions.entityId} ILIKE ${pattern} ESCAPE '\\')`);
  }
  return conds;
}

export function pgRevisions({ conn }: PgContext): RevisionsRepo {
  return {
    async insert(r) {
      const revisionId = randomUUID();
      // seq is an identity column: monotonic, so "newest first" is exact even within one millisecond.
      await conn()
        .insert(revisions)
        .values({ revisionId, ...revisionValues(r) });
      return revisionId;
    },
    async list(jobId, q) {
      const where = and(...conditions(jobId, q));
      const [counted] = await conn().select({ n: count() }).from(revisions).where(where);
      const rows = await conn()
        .select()
        .from(revisions)
        .where(where)
        .orderBy(desc(revisions.seq))
        .limit(q.limit)
        .offset(q.skip);
      return { items: rows.map(revisionView), total: counted?.n ?? 0, skip: q.skip, limit: q.limit };
    },
    all: async (jobId) =>
      (await conn().select().from(revisions).where(eq(revisions.jobId, jobId)).orderBy(asc(revisions.seq))).map(
        revisionView,
      ),
    getMany: async (jobId, revisionIds) =>
      revisionIds.length
        ? (
            await conn()
              .select()
              .from(revisions)
              .where(and(eq(revisions.jobId, jobId), inArray(revisions.revisionId, [...revisionIds])))
          ).map(revisionView)
        : [],
    structureGroup: async (jobId, group) =>
      (
        await conn()
          .select()
          .from(revisions)
          .where(
            and(
              eq(revisions.jobId, jobId),
              ne(revisions.action, 'undo'),
              sql`COALESCE(${revisions.after}, ${revisions.before}) -> 'structure' ->> 'group' = ${group}`,
            ),
          )
          .orderBy(asc(revisions.seq))
      ).map(revisionView),
    async update(revisionId, set) {
      await conn().update(revisions).set(revisionSet(set)).where(eq(revisions.revisionId, revisionId));
    },
  };
}

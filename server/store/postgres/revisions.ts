import { randomUUID } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, revisions } from '../../../drizzle/pg/schema.js';
import { auditConditions, structureGroupWhere } from '../queries/revisions.js';
import type { AuditFilter, RevisionsRepo } from '../repos/revisions-repo.js';
import { revisionSet, revisionValues, revisionView } from '../rows/revisions.js';
import type { PgContext } from './context.js';

const conditions = (jobId: string, f: AuditFilter): SQL[] =>
  auditConditions(
    { revisions, blocks, chunks },
    { chunkOnPage: (page) => sql`${chunks.pageNumbers} @> ${JSON.stringify([page])}::jsonb`, like: 'ILIKE' },
    jobId,
    f,
  );

/** The structure group a revision belongs to, read from its JSON: the state after it, else (a removal) before it. */
const groupOfRevision = sql`COALESCE(${revisions.after}, ${revisions.before}) -> 'structure' ->> 'group'`;

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
          .where(structureGroupWhere(revisions, jobId, groupOfRevision, group))
          .orderBy(asc(revisions.seq))
      ).map(revisionView),
    async update(revisionId, set) {
      await conn().update(revisions).set(revisionSet(set)).where(eq(revisions.revisionId, revisionId));
    },
  };
}

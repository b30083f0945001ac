/** The revisions repository's filter conditions, the same on both backends but for what each says of its own. */
import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { AuditFilter } from '../repos/revisions-repo.js';
import type { EitherTable } from './tables.js';

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface AuditTables {
  revisions: EitherTable<'revisions'>;
  blocks: EitherTable<'blocks'>;
  chunks: EitherTable<'chunks'>;
}

/** What the filter's conditions say in each backend's own SQL. */
export interface AuditDialect {
  /** The chunk's page list (a JSON column) holds the page. */
  chunkOnPage(page: number): SQL;
  /** The match that ignores case as a person searching expects: SQLite's LIKE does for ASCII, PostgreSQL's ILIKE beyond it. */
  like: 'LIKE' | 'ILIKE';
}

/**
 * The conditions on a job's revisions that the filter sets. A page has no column of its own on a revision:
 * it is the page of the block changed, or any page of the chunk changed (a chunk can span several).
 */
export function auditConditions(
  { revisions, blocks, chunks }: AuditTables,
  dialect: AuditDialect,
  jobId: string,
  f: AuditFilter,
): SQL[] {
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
        (SELECT ${chunks.chunkId} FROM ${chunks} WHERE ${chunks.jobId} = ${jobId} AND ${dialect.chunkOnPage(f.page)})))`);
  }
  const words = f.q?.trim();
  if (words) {
    const pattern = `%${likeLiteral(words)}%`;
    const like = sql.raw(dialect.like);
    conds.push(sql`(${revisions.originalText} ${like} ${pattern} ESCAPE '\\' OR ${revisions.editedText} ${like} ${pattern} ESCAPE '\\'
      OR ${revisions.reviewerNote} ${like} ${pattern} ESCAPE '\\' OR ${revisions.entityId} ${like} ${pattern} ESCAPE '\\')`);
  }
  return conds;
}

/** A job's revisions (but undos) of a structure group, the group as the backend reads it from the revision's JSON. */
export const structureGroupWhere = (
  revisions: EitherTable<'revisions'>,
  jobId: string,
  groupOfRevision: SQL,
  group: string,
): SQL | undefined => and(eq(revisions.jobId, jobId), ne(revisions.action, 'undo'), sql`${groupOfRevision} = ${group}`);

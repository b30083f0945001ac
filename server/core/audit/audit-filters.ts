import { eq, sql, type SQL } from 'drizzle-orm';
import { blocks, chunks, revisions } from '../../../drizzle/schema.js';

/** The audit trail's filters beyond item and action: who made the change, on which page, with which words. */
export interface AuditFilters {
  reviewer?: string;
  page?: number;
  q?: string;
}

/** `%`, `_` and the escape itself taken literally in a LIKE pattern. */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * SQL conditions on revisions for the filters given. A page has no column of its own on a revision: it
 * is the page of the block changed, or any page of the chunk changed (a chunk can span several).
 */
export function auditFilterConditions(jobId: string, f: AuditFilters): SQL[] {
  const conds: SQL[] = [];
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

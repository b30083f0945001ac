/** The jobs and blocks repositories' conditions and changes, the same on both backends. */
import { and, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { BlockFilter } from '../repos/jobs-repo.js';
import type { EitherTable } from './tables.js';

/** The conditions on a job's blocks that the filter sets. */
export function blockConditions(blocks: EitherTable<'blocks'>, jobId: string, f: BlockFilter): SQL[] {
  const conds: SQL[] = [eq(blocks.jobId, jobId)];
  if (f.status) conds.push(eq(blocks.status, f.status));
  if (f.not_status) conds.push(ne(blocks.status, f.not_status));
  // The type that counts, so a block retyped by a reviewer is found under its new type.
  if (f.type) conds.push(sql`COALESCE(${blocks.editedType}, ${blocks.type}) = ${f.type}`);
  if (f.page !== undefined) conds.push(eq(blocks.page, f.page));
  if (f.flagged !== undefined) conds.push(eq(blocks.flagged, f.flagged));
  if (f.source) conds.push(eq(blocks.source, f.source));
  return conds;
}

/** A job taken to read, from one of the states `from`: processing from `now`, no page read yet, its attempt counted. */
export const claimSet = (jobs: EitherTable<'jobs'>, now: string) => ({
  status: 'processing',
  startedAt: now,
  updatedAt: now,
  pagesDone: 0,
  attempts: sql`${jobs.attempts} + 1`,
});
export const claimable = (jobs: EitherTable<'jobs'>, jobId: string, from: readonly string[]) =>
  and(eq(jobs.jobId, jobId), inArray(jobs.status, [...from]));

import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, lt, ne, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { blocks, chunks, jobIndexes, jobs, pages } from '../../../drizzle/pg/schema.js';
import type { PageOf, Paging } from '../repos/paging.js';
import type { BlocksRepo, ChunkFilter, ChunksRepo, JobsRepo, ReviewCounts } from '../repos/jobs-repo.js';
import type { OcrPages, PagesRepo } from '../repos/pages-repo.js';
import {
  blockRecord,
  blockSet,
  chunkSet,
  chunkView,
  jobRecord,
  jobSet,
  newBlockRow,
  newChunkRow,
  newPageRow,
  pageView,
  tally,
} from '../rows/jobs.js';
import type { PgConn, PgContext } from './context.js';
import { copyRows, givenColumns } from './copy-rows.js';
import { jobIndexOf } from '../rows/collections.js';
import { blockConditions, claimable, claimSet } from '../queries/jobs.js';

/** Ids per IN list. */
const ID_SLICE = 5000;
/** From this many rows a table's rows go by COPY: below it, COPY's round trips cost more than it saves. */
const COPY_FROM_ROWS = 500;

/**
 * The INSERT of rows as one JSON parameter that PostgreSQL unpacks (json_populate_recordset): as bound
 * parameters, rows of a dozen columns cost several times more to build and send than the insert itself.
 * Columns no row sets keep their defaults.
 */
function insertOf(table: PgTable, rows: readonly object[]): SQL {
  const columns = givenColumns(table, rows);
  const list = sql.join(
    columns.map(([, c]) => sql.identifier(c.name)),
    sql`, `,
  );
  const data = rows.map((r) =>
    Object.fromEntries(columns.map(([key, c]) => [c.name, (r as Record<string, unknown>)[key] ?? null])),
  );
  return sql`INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, ${JSON.stringify(data)}::json)`;
}

/**
 * Writes each table's rows, then runs `last`. A table of many rows goes by COPY (copy-rows.ts); the other
 * tables' INSERTs and `last` go as one statement, each but the last a CTE of it: a round trip is most of a
 * small document's save on a team server, so it costs one, not one a table.
 */
async function writeRows(
  ctx: PgContext,
  tables: readonly { table: PgTable; rows: readonly object[] }[],
  last?: SQL,
): Promise<void> {
  const statements: SQL[] = [];
  for (const { table, rows } of tables) {
    if (rows.length >= COPY_FROM_ROWS) await ctx.withClient((client) => copyRows(client, table, rows));
    else if (rows.length > 0) statements.push(insertOf(table, rows));
  }
  if (last) statements.push(last);
  const final = statements.pop();
  if (!final) return;
  const ctes = statements.map((s, i) => sql`${sql.identifier(`w${i}`)} AS (${s})`);
  await ctx.conn().execute(ctes.length ? sql`WITH ${sql.join(ctes, sql`, `)} ${final}` : final);
}

/** One page of `table`'s rows matching `where`, with the total count every list answer carries. */
async function paged<R, V>(
  conn: PgConn,
  table: typeof jobs | typeof blocks | typeof chunks | typeof pages,
  where: SQL | undefined,
  orderBy: (PgColumn | SQL)[],
  { skip, limit }: Paging,
  view: (row: R) => V,
): Promise<PageOf<V>> {
  const [counted] = await conn.select({ n: count() }).from(table).where(where);
  const rows = (await conn
    .select()
    .from(table)
    .where(where)
    .orderBy(...orderBy)
    .limit(limit)
    .offset(skip)) as R[];
  return { items: rows.map(view), total: counted?.n ?? 0, skip, limit };
}

/** A JSON array column holding this value (jsonb containment). */
const holds = (column: PgColumn, value: string | number) => sql`${column} @> ${JSON.stringify([value])}::jsonb`;

/** A job's review counts as one subquery's rows (`jobId`: the job's id, or its column in an outer query). */
const countRows = (jobId: string | SQL): SQL => sql`
  SELECT 'block' AS of, status, count(*)::int AS n FROM ${blocks} WHERE job_id = ${jobId} GROUP BY status
  UNION ALL SELECT 'chunk', status, count(*)::int FROM ${chunks} WHERE job_id = ${jobId} GROUP BY status
  UNION ALL SELECT 'stale', '', count(*)::int FROM ${chunks} WHERE job_id = ${jobId} AND stale`;

function countsOf(counted: { of: string; status: string; n: number }[]): ReviewCounts {
  const of = (kind: string) => counted.filter((r) => r.of === kind);
  return { blocks: tally(of('block')), chunks: { ...tally(of('chunk')), stale: of('stale')[0]?.n ?? 0 } };
}

interface OcrRow {
  page: number;
  needsOcr: boolean;
  language: string | null;
  confidence: number | null;
  rotation: number | null;
}

/** Both OCR lists from one read of the pages that need OCR or were OCRed, in page order. */
const ocrListsOf = (rows: OcrRow[]): OcrPages => ({
  needing: rows.filter((p) => p.needsOcr).map((p) => p.page),
  read: rows
    .filter((p) => p.language !== null)
    .map(({ page, language, confidence, rotation }) => ({ page, language: language ?? '', confidence, rotation })),
});

export function pgJobs(ctx: PgContext): JobsRepo {
  const { conn, transaction } = ctx;
  const countOf = async (table: typeof blocks | typeof chunks, jobId: string) =>
    (await conn().select({ n: count() }).from(table).where(eq(table.jobId, jobId)))[0]?.n ?? 0;
  return {
    async insert(job) {
      const [row] = await conn()
        .insert(jobs)
        .values({ ...jobSet(job), jobId: job.job_id, createdAt: job.created_at } as typeof jobs.$inferInsert)
        .returning();
      return jobRecord(row!);
    },
    async get(jobId) {
      const [row] = await conn().select().from(jobs).where(eq(jobs.jobId, jobId));
      return row ? jobRecord(row) : null;
    },
    list(q) {
      const byStatus = q.statuses.length > 0 ? inArray(jobs.status, q.statuses) : undefined;
      const inScope = q.scope
        ? or(
            q.scope.jobs.length ? inArray(jobs.jobId, q.scope.jobs) : sql`false`,
            q.scope.bots.length ? inArray(jobs.botId, q.scope.bots) : sql`false`,
          )
        : undefined;
      return paged(conn(), jobs, and(byStatus, inScope), [desc(jobs.createdAt), desc(jobs.jobId)], q, jobRecord);
    },
    async update(jobId, set, whenStatus) {
      const conds: SQL[] = [eq(jobs.jobId, jobId)];
      if (whenStatus) conds.push(inArray(jobs.status, [...whenStatus]));
      return (
        (
          await conn()
            .update(jobs)
            .set(jobSet(set))
            .where(and(...conds))
            .returning({ id: jobs.jobId })
        ).length > 0
      );
    },
    async claim(jobId, now, from = ['queued']) {
      const [row] = await conn()
        .update(jobs)
        .set(claimSet(jobs, now))
        .where(claimable(jobs, jobId, from))
        .returning();
      return row ? jobRecord(row) : null;
    },
    async uncountAttempt(jobId) {
      await conn()
        .update(jobs)
        .set({ attempts: sql`GREATEST(${jobs.attempts} - 1, 0)` })
        .where(eq(jobs.jobId, jobId));
    },
    requeueUnfinished: () =>
      transaction(async () => {
        const rows = await conn()
          .select({ jobId: jobs.jobId })
          .from(jobs)
          .where(inArray(jobs.status, ['queued', 'processing']))
          .orderBy(asc(jobs.createdAt))
          .for('update');
        if (rows.length > 0) await conn().update(jobs).set({ status: 'queued' }).where(eq(jobs.status, 'processing'));
        return rows.map((r) => r.jobId);
      }),
    async delete(jobId) {
      await conn().delete(jobs).where(eq(jobs.jobId, jobId));
    },
    saveExtraction: (jobId, x) =>
      transaction(async () => {
        // The job's row locked first: a cancel or delete from another node waits for the save, or wins before
        // it. What an earlier attempt may have left goes in the same statement.
        const processing = sql`(SELECT status FROM locked) = 'processing'`;
        const [job] = (
          await conn().execute(sql`
            WITH locked AS (SELECT status FROM ${jobs} WHERE job_id = ${jobId} FOR UPDATE),
              p AS (DELETE FROM ${pages} WHERE job_id = ${jobId} AND ${processing}),
              b AS (DELETE FROM ${blocks} WHERE job_id = ${jobId} AND ${processing}),
              c AS (DELETE FROM ${chunks} WHERE job_id = ${jobId} AND ${processing})
            SELECT status FROM locked`)
        ).rows as { status: string }[];
        if (job?.status !== 'processing') return false;
        await writeRows(
          ctx,
          [
            { table: pages, rows: x.pages.map((p) => newPageRow(jobId, p)) },
            { table: blocks, rows: x.blocks.map((b) => newBlockRow(jobId, b)) },
            { table: chunks, rows: x.chunks.map((c) => newChunkRow(jobId, c)) },
          ],
          conn().update(jobs).set(jobSet(x.job)).where(eq(jobs.jobId, jobId)).getSQL(),
        );
        return true;
      }),
    async blockTallies(jobIds) {
      const rows = jobIds.length
        ? await conn()
            .select({ jobId: blocks.jobId, status: blocks.status, n: count() })
            .from(blocks)
            .where(inArray(blocks.jobId, [...jobIds]))
            .groupBy(blocks.jobId, blocks.status)
        : [];
      return new Map(jobIds.map((id) => [id, tally(rows.filter((r) => r.jobId === id))]));
    },
    // One statement, not one a count: followers read a job's counts at every change of it, on every node.
    async reviewCounts(jobId) {
      const { rows } = await conn().execute(countRows(jobId));
      return countsOf(rows as { of: string; status: string; n: number }[]);
    },
    async status(jobId) {
      // One statement: API nodes read it for every follower at every change of the job, on the same cores as the reading.
      // The outer job's id, named with its table: a subquery would take a bare `job_id` for its own.
      const outer = sql`${jobs}.job_id`;
      const [row] = await conn()
        .select({
          job: jobs,
          index: jobIndexes,
          ocr: sql<OcrRow[]>`(SELECT coalesce(json_agg(json_build_object('page', p.page, 'needsOcr', p.needs_ocr,
            'language', p.ocr_language, 'confidence', p.ocr_confidence, 'rotation', p.ocr_rotation) ORDER BY p.page), '[]')
            FROM ${pages} p WHERE p.job_id = ${outer} AND (p.needs_ocr OR p.ocr_language IS NOT NULL))`,
          counts: sql<
            { of: string; status: string; n: number }[]
          >`(SELECT coalesce(json_agg(c), '[]') FROM (${countRows(outer)}) c)`,
        })
        .from(jobs)
        .leftJoin(jobIndexes, eq(jobIndexes.jobId, jobs.jobId))
        .where(eq(jobs.jobId, jobId));
      if (!row) return null;
      return {
        job: jobRecord(row.job),
        ocr: ocrListsOf(row.ocr),
        review: countsOf(row.counts),
        index: row.index ? jobIndexOf(row.index) : null,
      };
    },
    async recount(jobId, now) {
      const totals = { total_blocks: await countOf(blocks, jobId), total_chunks: await countOf(chunks, jobId) };
      await conn()
        .update(jobs)
        .set({ totalBlocks: totals.total_blocks, totalChunks: totals.total_chunks, updatedAt: now })
        .where(eq(jobs.jobId, jobId));
      return totals;
    },
  };
}

export function pgBlocks({ conn }: PgContext): BlocksRepo {
  const one = (jobId: string, blockId: string) => and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId));
  return {
    async get(jobId, blockId) {
      const [row] = await conn().select().from(blocks).where(one(jobId, blockId));
      return row ? blockRecord(row) : null;
    },
    async getMany(jobId, blockIds) {
      const out = [];
      for (let i = 0; i < blockIds.length; i += ID_SLICE) {
        const rows = await conn()
          .select()
          .from(blocks)
          .where(and(eq(blocks.jobId, jobId), inArray(blocks.blockId, blockIds.slice(i, i + ID_SLICE))));
        out.push(...rows.map(blockRecord));
      }
      return out;
    },
    list(jobId, q) {
      const order =
        q.sort === 'confidence'
          ? [sql`${blocks.confidence} IS NULL`, asc(blocks.confidence), asc(blocks.orderIndex)]
          : [asc(blocks.orderIndex)];
      return paged(conn(), blocks, and(...blockConditions(blocks, jobId, q)), order, q, blockRecord);
    },
    find: async (jobId, filter = {}) =>
      (
        await conn()
          .select()
          .from(blocks)
          .where(and(...blockConditions(blocks, jobId, filter)))
          .orderBy(asc(blocks.orderIndex))
      ).map(blockRecord),
    async neighbour(jobId, orderIndex, side) {
      const [row] =
        side === 'before'
          ? await conn()
              .select()
              .from(blocks)
              .where(and(eq(blocks.jobId, jobId), lt(blocks.orderIndex, orderIndex)))
              .orderBy(desc(blocks.orderIndex))
              .limit(1)
          : await conn()
              .select()
              .from(blocks)
              .where(and(eq(blocks.jobId, jobId), gt(blocks.orderIndex, orderIndex)))
              .orderBy(asc(blocks.orderIndex))
              .limit(1);
      return row ? blockRecord(row) : null;
    },
    async firstOrderIndex(jobId) {
      const [first] = await conn()
        .select({ o: sql<number | null>`MIN(${blocks.orderIndex})` })
        .from(blocks)
        .where(eq(blocks.jobId, jobId));
      return first?.o ?? 0;
    },
    async insert(jobId, block) {
      const [row] = await conn()
        .insert(blocks)
        .values({ ...blockSet(block), jobId, blockId: block.block_id } as typeof blocks.$inferInsert)
        .returning();
      return blockRecord(row!);
    },
    async update(jobId, blockId, set, ifVersion) {
      const where =
        ifVersion === undefined ? one(jobId, blockId) : and(one(jobId, blockId), eq(blocks.version, ifVersion));
      const [row] = await conn().update(blocks).set(blockSet(set)).where(where).returning();
      return row ? blockRecord(row) : null;
    },
    async delete(jobId, blockId) {
      await conn().delete(blocks).where(one(jobId, blockId));
    },
    async shiftFrom(jobId, fromOrder, except) {
      const conds = [eq(blocks.jobId, jobId), gte(blocks.orderIndex, fromOrder)];
      if (except) conds.push(ne(blocks.blockId, except));
      await conn()
        .update(blocks)
        .set({ orderIndex: sql`${blocks.orderIndex} + 1` })
        .where(and(...conds));
    },
    async compactOrder(jobId) {
      await conn().execute(sql`UPDATE blocks SET order_index = r.n FROM (
        SELECT block_id AS id, ROW_NUMBER() OVER (ORDER BY order_index) - 1 AS n FROM blocks WHERE job_id = ${jobId}
      ) AS r WHERE blocks.job_id = ${jobId} AND blocks.block_id = r.id AND blocks.order_index <> r.n`);
    },
    async fingerprint(jobId) {
      const [f] = await conn()
        .select({
          v: sql<string>`COALESCE(SUM(${blocks.version}), 0)::text || ':' || COUNT(*)::text || ':' || COALESCE(SUM(${blocks.orderIndex} * ${blocks.version}), 0)::text`,
        })
        .from(blocks)
        .where(eq(blocks.jobId, jobId));
      return f?.v ?? '';
    },
  };
}

function chunkConditions(jobId: string, f: ChunkFilter): SQL[] {
  const conds: SQL[] = [eq(chunks.jobId, jobId)];
  if (f.status) conds.push(eq(chunks.status, f.status));
  if (f.chunk_type) conds.push(eq(chunks.chunkType, f.chunk_type));
  if (f.stale !== undefined) conds.push(eq(chunks.stale, f.stale));
  if (f.page !== undefined) conds.push(holds(chunks.pageNumbers, f.page));
  if (f.block_id !== undefined) conds.push(holds(chunks.blockIds, f.block_id));
  return conds;
}

export function pgChunks(ctx: PgContext): ChunksRepo {
  const { conn } = ctx;
  const one = (jobId: string, chunkId: string) => and(eq(chunks.jobId, jobId), eq(chunks.chunkId, chunkId));
  return {
    async get(jobId, chunkId) {
      const [row] = await conn().select().from(chunks).where(one(jobId, chunkId));
      return row ? chunkView(row) : null;
    },
    list: (jobId, q) =>
      paged(conn(), chunks, and(...chunkConditions(jobId, q)), [asc(chunks.orderIndex)], q, chunkView),
    find: async (jobId, filter = {}) =>
      (
        await conn()
          .select()
          .from(chunks)
          .where(and(...chunkConditions(jobId, filter)))
          .orderBy(asc(chunks.orderIndex))
      ).map(chunkView),
    ids: async (jobId) =>
      (await conn().select({ id: chunks.chunkId }).from(chunks).where(eq(chunks.jobId, jobId))).map((r) => r.id),
    insertMany: (jobId, list) => writeRows(ctx, [{ table: chunks, rows: list.map((c) => newChunkRow(jobId, c)) }]),
    async update(jobId, chunkId, set, ifVersion) {
      const where =
        ifVersion === undefined ? one(jobId, chunkId) : and(one(jobId, chunkId), eq(chunks.version, ifVersion));
      const [row] = await conn().update(chunks).set(chunkSet(set)).where(where).returning();
      return row ? chunkView(row) : null;
    },
    async deleteMany(jobId, chunkIds) {
      for (let i = 0; i < chunkIds.length; i += ID_SLICE) {
        await conn()
          .delete(chunks)
          .where(and(eq(chunks.jobId, jobId), inArray(chunks.chunkId, chunkIds.slice(i, i + ID_SLICE))));
      }
    },
    async markStale(jobId, blockIds) {
      if (!blockIds.length) return 0;
      // One statement for any number of blocks: `?|` is "holds any of these strings".
      const done = await conn()
        .update(chunks)
        .set({ stale: true })
        .where(and(eq(chunks.jobId, jobId), sql`${chunks.blockIds} ?| ${sql.param([...blockIds])}::text[]`))
        .returning({ id: chunks.chunkId });
      return done.length;
    },
  };
}

export function pgPages({ conn }: PgContext): PagesRepo {
  return {
    list: (jobId, paging) => paged(conn(), pages, eq(pages.jobId, jobId), [asc(pages.page)], paging, pageView),
    has: async (jobId, page) =>
      (
        await conn()
          .select({ page: pages.page })
          .from(pages)
          .where(and(eq(pages.jobId, jobId), eq(pages.page, page)))
      ).length > 0,
    async ocrPages(jobId) {
      // One read for both lists.
      const rows = await conn()
        .select({
          page: pages.page,
          needsOcr: pages.needsOcr,
          language: pages.ocrLanguage,
          confidence: pages.ocrConfidence,
          rotation: pages.ocrRotation,
        })
        .from(pages)
        .where(and(eq(pages.jobId, jobId), or(eq(pages.needsOcr, true), isNotNull(pages.ocrLanguage))))
        .orderBy(asc(pages.page));
      return ocrListsOf(rows);
    },
  };
}

import { and, asc, count, desc, eq, gt, isNotNull, sql } from 'drizzle-orm';
import { chunkVectors, collectionReindexes, jobIndexes, jobs } from '../../../drizzle/pg/schema.js';
import type { ReindexMethods } from '../repos/collections-repo.js';
import { reindexOf, reindexValues } from '../rows/collections.js';
import type { PgContext } from './context.js';

/** The collections repository's reindex methods on PostgreSQL (collections.ts composes them). */
export function pgCollectionReindexes(ctx: PgContext): ReindexMethods {
  const { conn } = ctx;
  const get = async (reindexId: string) => {
    const [row] = await conn().select().from(collectionReindexes).where(eq(collectionReindexes.reindexId, reindexId));
    return row ? reindexOf(row) : null;
  };
  const running = (reindexId: string) =>
    and(eq(collectionReindexes.reindexId, reindexId), eq(collectionReindexes.state, 'running'));
  return {
    async embeddingInto(name) {
      const [row] = await conn()
        .select({ n: count() })
        .from(jobIndexes)
        .innerJoin(jobs, eq(jobs.jobId, jobIndexes.jobId))
        .where(and(eq(jobIndexes.collection, name), eq(jobs.status, 'embedding')));
      return Number(row?.n ?? 0);
    },
    keyedTexts: (name, afterKey, limit) =>
      conn()
        .select({ key: chunkVectors.key, text: chunkVectors.text })
        .from(chunkVectors)
        .where(and(eq(chunkVectors.collection, name), gt(chunkVectors.key, afterKey)))
        .orderBy(asc(chunkVectors.key))
        .limit(limit),
    async countKeys(name) {
      const [row] = await conn().select({ n: count() }).from(chunkVectors).where(eq(chunkVectors.collection, name));
      return Number(row?.n ?? 0);
    },
    async beginReindex(r) {
      // The partial unique index allows one running reindex a collection: a second insert does nothing.
      const added = await conn()
        .insert(collectionReindexes)
        .values(reindexValues(r))
        .onConflictDoNothing()
        .returning({ id: collectionReindexes.reindexId });
      return added.length > 0 ? get(r.reindex_id) : null;
    },
    reindex: get,
    async lastReindex(name) {
      const [row] = await conn()
        .select()
        .from(collectionReindexes)
        .where(eq(collectionReindexes.collection, name))
        .orderBy(desc(collectionReindexes.createdAt), desc(collectionReindexes.reindexId))
        .limit(1);
      return row ? reindexOf(row) : null;
    },
    async runningReindexes() {
      const rows = await conn()
        .select()
        .from(collectionReindexes)
        .where(eq(collectionReindexes.state, 'running'))
        .orderBy(asc(collectionReindexes.createdAt));
      return rows.map(reindexOf);
    },
    async reindexProgress(reindexId, done, total, at) {
      await conn()
        .update(collectionReindexes)
        .set({ chunksDone: done, chunksTotal: total, updatedAt: at })
        .where(running(reindexId));
    },
    async endReindex(reindexId, state, failure, at) {
      const ended = await conn()
        .update(collectionReindexes)
        .set({
          state,
          errorCode: failure?.code ?? null,
          errorMessage: failure?.message ?? null,
          dropIndex: sql`${collectionReindexes.vectorIndex}`,
          updatedAt: at,
          finishedAt: at,
        })
        .where(running(reindexId))
        .returning({ id: collectionReindexes.reindexId });
      return ended.length > 0;
    },
    async switchToReindex(reindexId, at) {
      // One statement: the reindex is done and the collection takes its model and index together, or neither
      // changes (the reindex no longer running, or the collection's index moved on since it began).
      const res = await conn().execute<{ name: string }>(sql`
        WITH r AS (
          UPDATE collection_reindexes x
          SET state = 'done', chunks_done = x.chunks_total, drop_index = coalesce(x.from_index, x.collection),
              updated_at = ${at}, finished_at = ${at}
          WHERE x.reindex_id = ${reindexId} AND x.state = 'running' AND EXISTS (
            SELECT 1 FROM collections c WHERE c.name = x.collection AND c.vector_index IS NOT DISTINCT FROM x.from_index
          )
          RETURNING x.*
        )
        UPDATE collections c
        SET provider = r.provider, base_url = r.base_url, model = r.model, dimensions = r.dimensions,
            vector_index = r.vector_index, index_version = c.index_version + 1, updated_at = ${at}
        FROM r WHERE c.name = r.collection
        RETURNING c.name`);
      return res.rows.length > 0;
    },
    async indexesToDrop() {
      const rows = await conn()
        .select({ reindex_id: collectionReindexes.reindexId, drop_index: collectionReindexes.dropIndex })
        .from(collectionReindexes)
        .where(isNotNull(collectionReindexes.dropIndex));
      return rows.map((r) => ({ reindex_id: r.reindex_id, drop_index: r.drop_index! }));
    },
    async droppedIndex(reindexId, at) {
      await conn()
        .update(collectionReindexes)
        .set({ dropIndex: null, updatedAt: at })
        .where(eq(collectionReindexes.reindexId, reindexId));
    },
  };
}

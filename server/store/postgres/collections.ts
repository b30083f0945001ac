import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { chunks, chunkVectors, collections, jobIndexes, jobs } from '../../../drizzle/pg/schema.js';
import type { CollectionsRepo, VectorHit } from '../repos/collections-repo.js';
import { hitColumns, restingStatus, stillIndexableWhere, vectorChunk, vectorColumns } from '../queries/collections.js';
import { chunkVectorValues, collectionOf, collectionValues, INDEXABLE, jobIndexOf } from '../rows/collections.js';
import { indexTexts, textTable } from './collection-tables.js';
import { pgCollectionReindexes } from './collection-reindexes.js';
import type { PgContext } from './context.js';

/** Rows per statement: well under PostgreSQL's 65,535 bound parameters at 8 columns a row. */
const BATCH = 1000;

export function pgCollections(ctx: PgContext): CollectionsRepo {
  const { conn } = ctx;
  const find = async (name: string) => {
    const [row] = await conn().select().from(collections).where(eq(collections.name, name));
    return row ? collectionOf(row) : null;
  };
  return {
    ...pgCollectionReindexes(ctx),
    find,
    async list(names) {
      if (names?.length === 0) return [];
      const only = names ? inArray(collections.name, [...names]) : undefined;
      return (await conn().select().from(collections).where(only).orderBy(asc(collections.name))).map(collectionOf);
    },
    async ensure(c) {
      await conn().insert(collections).values(collectionValues(c)).onConflictDoNothing();
      return (await find(c.name))!;
    },
    async reserveKeys(name, n) {
      const [row] = await conn()
        .update(collections)
        .set({ nextKey: sql`${collections.nextKey} + ${n}` })
        .where(eq(collections.name, name))
        .returning({ next: collections.nextKey });
      if (!row) throw new Error(`no collection ${name}`);
      return row.next - n;
    },
    async bumpVersions(names, at) {
      if (names.length === 0) return;
      await conn()
        .update(collections)
        .set({ indexVersion: sql`${collections.indexVersion} + 1`, updatedAt: at })
        .where(inArray(collections.name, [...names]));
    },
    // Its chunk_vectors and job_indexes rows go by ON DELETE CASCADE; its full-text table goes with it.
    remove: (name) =>
      ctx.transaction(async () => {
        await conn().execute(sql`DROP TABLE IF EXISTS ${textTable(name)}`);
        await conn().delete(collections).where(eq(collections.name, name));
      }),

    async jobIndex(jobId) {
      const [row] = await conn().select().from(jobIndexes).where(eq(jobIndexes.jobId, jobId));
      return row ? jobIndexOf(row) : null;
    },
    beginEmbed: (jobId, collection, total, from, at) =>
      ctx.transaction(async () => {
        const started = await conn()
          .update(jobs)
          .set({ status: 'embedding', errorCode: null, errorMessage: null, updatedAt: at })
          .where(and(eq(jobs.jobId, jobId), inArray(jobs.status, [...from])))
          .returning({ id: jobs.jobId });
        if (started.length === 0) return false;
        await conn()
          .insert(jobIndexes)
          .values({ jobId, collection, chunksEmbedded: 0, chunksTotal: total, updatedAt: at })
          .onConflictDoUpdate({
            target: jobIndexes.jobId,
            set: { collection, chunksEmbedded: 0, chunksTotal: total, updatedAt: at },
          });
        return true;
      }),
    async progress(jobId, embedded, at) {
      await conn()
        .update(jobIndexes)
        .set({ chunksEmbedded: embedded, updatedAt: at })
        .where(eq(jobIndexes.jobId, jobId));
    },
    finishEmbed: (jobId, total, at) =>
      ctx.transaction(async () => {
        const done = await conn()
          .update(jobs)
          .set({ status: 'indexed', updatedAt: at })
          .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'embedding')))
          .returning({ id: jobs.jobId });
        if (done.length === 0) return false;
        await conn()
          .update(jobIndexes)
          .set({ chunksEmbedded: total, chunksTotal: total, indexedAt: at, updatedAt: at })
          .where(eq(jobIndexes.jobId, jobId));
        return true;
      }),
    async restEmbed(jobId, failure, at) {
      await conn()
        .update(jobs)
        .set({
          status: restingStatus,
          errorCode: failure?.code ?? null,
          errorMessage: failure?.message ?? null,
          updatedAt: at,
        })
        .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'embedding')));
    },
    restInterruptedEmbeds: async (at) =>
      (
        await conn()
          .update(jobs)
          .set({ status: restingStatus, updatedAt: at })
          .where(eq(jobs.status, 'embedding'))
          .returning({ id: jobs.jobId })
      ).length,

    vectorsOfJob: (jobId) =>
      conn().select(vectorColumns(chunkVectors)).from(chunkVectors).where(eq(chunkVectors.jobId, jobId)),
    countVectors: async (jobId, collection) =>
      (
        await conn()
          .select({ n: count() })
          .from(chunkVectors)
          .where(and(eq(chunkVectors.jobId, jobId), eq(chunkVectors.collection, collection)))
      )[0]?.n ?? 0,
    // The full-text rows of the removed go with them (ON DELETE CASCADE); those of the added are made here.
    replaceVectors: (removeIds, add) =>
      ctx.transaction(async () => {
        for (let i = 0; i < removeIds.length; i += BATCH)
          await conn()
            .delete(chunkVectors)
            .where(inArray(chunkVectors.id, removeIds.slice(i, i + BATCH)));
        const added = new Map<string, number[]>();
        for (let i = 0; i < add.length; i += BATCH) {
          const rows = await conn()
            .insert(chunkVectors)
            .values(add.slice(i, i + BATCH).map(chunkVectorValues))
            .returning({ id: chunkVectors.id, collection: chunkVectors.collection });
          for (const r of rows) added.set(r.collection, [...(added.get(r.collection) ?? []), r.id]);
        }
        for (const [name, ids] of added) await indexTexts(conn(), name, ids);
      }),
    async hits(ids) {
      const out: VectorHit[] = [];
      for (let i = 0; i < ids.length; i += BATCH) {
        out.push(
          ...(await conn()
            .select(hitColumns(chunkVectors, chunks))
            .from(chunkVectors)
            .innerJoin(chunks, vectorChunk(chunkVectors, chunks))
            .where(inArray(chunkVectors.id, ids.slice(i, i + BATCH)))),
        );
      }
      return out;
    },

    indexableChunks: async (jobId) =>
      (
        await conn()
          .select({ chunk_id: chunks.chunkId, text: chunks.text, editedText: chunks.editedText })
          .from(chunks)
          .where(and(eq(chunks.jobId, jobId), inArray(chunks.status, INDEXABLE)))
          .orderBy(asc(chunks.orderIndex))
      ).map((c) => ({ chunk_id: c.chunk_id, text: c.editedText ?? c.text })),
    async stillIndexable(refs) {
      if (refs.length === 0) return [];
      return conn()
        .select({ job_id: chunks.jobId, chunk_id: chunks.chunkId })
        .from(chunks)
        .where(stillIndexableWhere(chunks, refs));
    },
  };
}

import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { chunks, chunkVectors, collections, jobIndexes, jobs } from '../../../drizzle/schema.js';
import type { Db, DbLike } from '../db.js';
import type { CollectionsRepo, JobIndexRecord, VectorHit } from '../repos/collections-repo.js';
import { hitColumns, restingStatus, stillIndexableWhere, vectorChunk, vectorColumns } from '../queries/collections.js';
import { chunkVectorValues, collectionOf, collectionValues, INDEXABLE, jobIndexOf } from '../rows/collections.js';
import { sqliteCollectionReindexes } from './collection-reindexes.js';
import type { TxGate } from './tx-gate.js';

/** Rows per statement: well under SQLite's 32,766 bound parameters at 8 columns a row. */
const BATCH = 500;

export function sqliteCollections(db: Db, gate: TxGate): CollectionsRepo {
  const find = (name: string) => {
    const row = db.select().from(collections).where(eq(collections.name, name)).get();
    return row ? collectionOf(row) : null;
  };
  return {
    ...sqliteCollectionReindexes(db, gate),
    find: (name) => gate.call(() => find(name)),
    list: (names) =>
      gate.call(() => {
        if (names?.length === 0) return [];
        const only = names ? inArray(collections.name, [...names]) : undefined;
        return db.select().from(collections).where(only).orderBy(asc(collections.name)).all().map(collectionOf);
      }),
    ensure: (c) =>
      gate.call(() => {
        db.insert(collections).values(collectionValues(c)).onConflictDoNothing().run();
        return find(c.name)!;
      }),
    reserveKeys: (name, n) =>
      gate.call(() => {
        const row = db
          .update(collections)
          .set({ nextKey: sql`${collections.nextKey} + ${n}` })
          .where(eq(collections.name, name))
          .returning({ next: collections.nextKey })
          .get();
        if (!row) throw new Error(`no collection ${name}`);
        return row.next - n;
      }),
    bumpVersions: (names, at) =>
      gate.call(() => {
        if (names.length === 0) return;
        db.update(collections)
          .set({ indexVersion: sql`${collections.indexVersion} + 1`, updatedAt: at })
          .where(inArray(collections.name, [...names]))
          .run();
      }),
    // Its chunk_vectors rows (and through their trigger, their full-text entries) and job_indexes rows go by ON DELETE CASCADE.
    remove: (name) =>
      gate.call(() => {
        db.delete(collections).where(eq(collections.name, name)).run();
      }),

    jobIndex: (jobId) => gate.call(() => readJobIndex(db, jobId)),
    beginEmbed: (jobId, collection, total, from, at) =>
      gate.call(() =>
        db.transaction((tx) => {
          const started = tx
            .update(jobs)
            .set({ status: 'embedding', errorCode: null, errorMessage: null, updatedAt: at })
            .where(and(eq(jobs.jobId, jobId), inArray(jobs.status, [...from])))
            .run().changes;
          if (started === 0) return false;
          tx.insert(jobIndexes)
            .values({ jobId, collection, chunksEmbedded: 0, chunksTotal: total, updatedAt: at })
            .onConflictDoUpdate({
              target: jobIndexes.jobId,
              set: { collection, chunksEmbedded: 0, chunksTotal: total, updatedAt: at },
            })
            .run();
          return true;
        }),
      ),
    progress: (jobId, embedded, at) =>
      gate.call(() => {
        db.update(jobIndexes).set({ chunksEmbedded: embedded, updatedAt: at }).where(eq(jobIndexes.jobId, jobId)).run();
      }),
    finishEmbed: (jobId, total, at) =>
      gate.call(() =>
        db.transaction((tx) => {
          const done = tx
            .update(jobs)
            .set({ status: 'indexed', updatedAt: at })
            .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'embedding')))
            .run().changes;
          if (done === 0) return false;
          tx.update(jobIndexes)
            .set({ chunksEmbedded: total, chunksTotal: total, indexedAt: at, updatedAt: at })
            .where(eq(jobIndexes.jobId, jobId))
            .run();
          return true;
        }),
      ),
    restEmbed: (jobId, failure, at) =>
      gate.call(() => {
        db.update(jobs)
          .set({
            status: restingStatus,
            errorCode: failure?.code ?? null,
            errorMessage: failure?.message ?? null,
            updatedAt: at,
          })
          .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'embedding')))
          .run();
      }),
    restInterruptedEmbeds: (at) =>
      gate.call(
        () =>
          db.update(jobs).set({ status: restingStatus, updatedAt: at }).where(eq(jobs.status, 'embedding')).run()
            .changes,
      ),

    vectorsOfJob: (jobId) =>
      gate.call(() =>
        db.select(vectorColumns(chunkVectors)).from(chunkVectors).where(eq(chunkVectors.jobId, jobId)).all(),
      ),
    countVectors: (jobId, collection) =>
      gate.call(
        () =>
          db
            .select({ n: sql<number>`count(*)` })
            .from(chunkVectors)
            .where(and(eq(chunkVectors.jobId, jobId), eq(chunkVectors.collection, collection)))
            .get()?.n ?? 0,
      ),
    replaceVectors: (removeIds, add) =>
      gate.call(() =>
        db.transaction((tx) => {
          for (let i = 0; i < removeIds.length; i += BATCH)
            tx.delete(chunkVectors)
              .where(inArray(chunkVectors.id, removeIds.slice(i, i + BATCH)))
              .run();
          for (let i = 0; i < add.length; i += 200) {
            tx.insert(chunkVectors)
              .values(add.slice(i, i + 200).map(chunkVectorValues))
              .run();
          }
        }),
      ),
    hits: (ids) =>
      gate.call(() => {
        const out: VectorHit[] = [];
        for (let i = 0; i < ids.length; i += BATCH) {
          out.push(
            ...db
              .select(hitColumns(chunkVectors, chunks))
              .from(chunkVectors)
              .innerJoin(chunks, vectorChunk(chunkVectors, chunks))
              .where(inArray(chunkVectors.id, ids.slice(i, i + BATCH)))
              .all(),
          );
        }
        return out;
      }),

    indexableChunks: (jobId) =>
      gate.call(() =>
        db
          .select({ chunk_id: chunks.chunkId, text: chunks.text, editedText: chunks.editedText })
          .from(chunks)
          .where(and(eq(chunks.jobId, jobId), inArray(chunks.status, INDEXABLE)))
          .orderBy(asc(chunks.orderIndex))
          .all()
          .map((c) => ({ chunk_id: c.chunk_id, text: c.editedText ?? c.text })),
      ),
    stillIndexable: (refs) =>
      gate.call(() => {
        if (refs.length === 0) return [];
        return db
          .select({ job_id: chunks.jobId, chunk_id: chunks.chunkId })
          .from(chunks)
          .where(stillIndexableWhere(chunks, refs))
          .all();
      }),
  };
}

/** Where the job is embedded, if it is (also read with the job's status). */
export function readJobIndex(db: DbLike, jobId: string): JobIndexRecord | null {
  const row = db.select().from(jobIndexes).where(eq(jobIndexes.jobId, jobId)).get();
  return row ? jobIndexOf(row) : null;
}

import { and, asc, desc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { chunkVectors, collectionReindexes, collections, jobIndexes, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import type { ReindexMethods } from '../repos/collections-repo.js';
import { reindexOf, reindexValues } from '../rows/collections.js';
import type { TxGate } from './tx-gate.js';

/** Thrown inside the switch's transaction to roll it back when the collection or the reindex moved on. */
const MOVED_ON = new Error('moved on');

/** The collections repository's reindex methods on SQLite (collections.ts composes them). */
export function sqliteCollectionReindexes(db: Db, gate: TxGate): ReindexMethods {
  const get = (reindexId: string) => {
    const row = db.select().from(collectionReindexes).where(eq(collectionReindexes.reindexId, reindexId)).get();
    return row ? reindexOf(row) : null;
  };
  return {
    embeddingInto: (name) =>
      gate.call(
        () =>
          db
            .select({ n: sql<number>`count(*)` })
            .from(jobIndexes)
            .innerJoin(jobs, eq(jobs.jobId, jobIndexes.jobId))
            .where(and(eq(jobIndexes.collection, name), eq(jobs.status, 'embedding')))
            .get()?.n ?? 0,
      ),
    keyedTexts: (name, afterKey, limit) =>
      gate.call(() =>
        db
          .select({ key: chunkVectors.key, text: chunkVectors.text })
          .from(chunkVectors)
          .where(and(eq(chunkVectors.collection, name), gt(chunkVectors.key, afterKey)))
          .orderBy(asc(chunkVectors.key))
          .limit(limit)
          .all(),
      ),
    countKeys: (name) =>
      gate.call(
        () =>
          db.select({ n: sql<number>`count(*)` }).from(chunkVectors).where(eq(chunkVectors.collection, name)).get()
            ?.n ?? 0,
      ),
    beginReindex: (r) =>
      gate.call(() => {
        // The partial unique index allows one running reindex a collection: a second insert does nothing.
        const added = db.insert(collectionReindexes).values(reindexValues(r)).onConflictDoNothing().run().changes;
        return added > 0 ? get(r.reindex_id) : null;
      }),
    reindex: (reindexId) => gate.call(() => get(reindexId)),
    lastReindex: (name) =>
      gate.call(() => {
        const row = db
          .select()
          .from(collectionReindexes)
          .where(eq(collectionReindexes.collection, name))
          .orderBy(desc(collectionReindexes.createdAt), desc(sql`rowid`))
          .limit(1)
          .get();
        return row ? reindexOf(row) : null;
      }),
    runningReindexes: () =>
      gate.call(() =>
        db
          .select()
          .from(collectionReindexes)
          .where(eq(collectionReindexes.state, 'running'))
          .orderBy(asc(collectionReindexes.createdAt))
          .all()
          .map(reindexOf),
      ),
    reindexProgress: (reindexId, done, total, at) =>
      gate.call(() => {
        db.update(collectionReindexes)
          .set({ chunksDone: done, chunksTotal: total, updatedAt: at })
          .where(and(eq(collectionReindexes.reindexId, reindexId), eq(collectionReindexes.state, 'running')))
          .run();
      }),
    endReindex: (reindexId, state, failure, at) =>
      gate.call(
        () =>
          db
            .update(collectionReindexes)
            .set({
              state,
              errorCode: failure?.code ?? null,
              errorMessage: failure?.message ?? null,
              dropIndex: collectionReindexes.vectorIndex,
              updatedAt: at,
              finishedAt: at,
            })
            .where(and(eq(collectionReindexes.reindexId, reindexId), eq(collectionReindexes.state, 'running')))
            .run().changes > 0,
      ),
    switchToReindex: (reindexId, at) =>
      gate.call(() => {
        try {
          return db.transaction((tx) => {
            const r = get(reindexId);
            if (r?.state !== 'running') throw MOVED_ON;
            const switched = tx
              .update(collections)
              .set({
                provider: r.provider,
                baseUrl: r.base_url,
                model: r.model,
                dimensions: r.dimensions,
                vectorIndex: r.vector_index,
                indexVersion: sql`${collections.indexVersion} + 1`,
                updatedAt: at,
              })
              .where(
                and(
                  eq(collections.name, r.collection),
                  r.from_index === null ? isNull(collections.vectorIndex) : eq(collections.vectorIndex, r.from_index),
                ),
              )
              .run().changes;
            if (switched === 0) throw MOVED_ON;
            tx.update(collectionReindexes)
              .set({
                state: 'done',
                chunksDone: collectionReindexes.chunksTotal,
                dropIndex: r.from_index ?? r.collection,
                updatedAt: at,
                finishedAt: at,
              })
              .where(eq(collectionReindexes.reindexId, reindexId))
              .run();
            return true;
          });
        } catch (err) {
          if (err === MOVED_ON) return false;
          throw err;
        }
      }),
    indexesToDrop: () =>
      gate.call(() =>
        db
          .select({ reindex_id: collectionReindexes.reindexId, drop_index: collectionReindexes.dropIndex })
          .from(collectionReindexes)
          .where(isNotNull(collectionReindexes.dropIndex))
          .all()
          .map((r) => ({ reindex_id: r.reindex_id, drop_index: r.drop_index! })),
      ),
    droppedIndex: (reindexId, at) =>
      gate.call(() => {
        db.update(collectionReindexes)
          .set({ dropIndex: null, updatedAt: at })
          .where(eq(collectionReindexes.reindexId, reindexId))
          .run();
      }),
  };
}

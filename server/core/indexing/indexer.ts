import { and, eq, inArray, sql } from 'drizzle-orm';
import { chunkVectors, collections, jobIndexes, jobs } from '../../../drizzle/schema.js';
import type { ModelManager } from '../../models/manager.js';
import type { CollectionIndexes } from '../../store/collection-indexes.js';
import type { Db } from '../../store/db.js';
import type { Store } from '../../store/store.js';
import type { VectorQuantization } from '../../store/vector-index.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError, describeFailure } from '../errors.js';
import { resolveProvider, type EmbeddingProvider, type ProviderChoice } from '../embedding/providers.js';
import { findJob } from '../jobs/find-job.js';
import type { Logger } from '../jobs/job-runner.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { requireState } from '../review/review-state.js';
import { assertSameModel, defaultCollectionName, findCollection, type CollectionRow } from './collections.js';
import { planEmbedding, type ChunkToEmbed, type EmbeddingPlan } from './plan.js';

export interface EmbedRequest extends Omit<ProviderChoice, 'provider'> {
  /** local unless named. */
  provider?: ProviderChoice['provider'];
  vector_db?: 'usearch';
  collection_name?: string;
  /** For a new collection only: how the index stores vectors (f16 keeps f32's recall at half the size). */
  quantization?: VectorQuantization;
}

export interface IndexerDeps {
  db: Db;
  /** For findJob (the job's record). */
  store: Store;
  pool: TaskPool;
  models: ModelManager;
  indexes: CollectionIndexes;
  clock: Clock;
  log: Logger;
  defaultModel: string;
  /** Remote embedding providers are reached through it. */
  net: GuardedFetch;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

const EMBEDDABLE = ['finalized', 'indexed'];

/**
 * Embeds a finalized job's approved and edited chunks into a collection, in the background: the request
 * is checked (state, model, collection) and answered at once, the job shows `embedding` with progress, then
 * `indexed`. Vectors reach the index file and the key mapping together at the end, after the file was
 * saved, so a crash part-way leaves the previous index intact and the job re-embeddable.
 */
export function createIndexer(deps: IndexerDeps) {
  const { db, indexes, clock, log } = deps;
  const running = new Map<string, Run>();
  let closing = false;

  const indexOf = (c: Pick<CollectionRow, 'name' | 'dimensions' | 'quantization'>) => indexes.get(c);

  /** The job's status before this embed: `indexed` once it has been indexed, else `finalized`. */
  const restingState = (jobId: string) => (db.select().from(jobIndexes).where(eq(jobIndexes.jobId, jobId)).get()?.indexedAt ? 'indexed' : 'finalized');

  async function embedJob(jobId: string, req: EmbedRequest) {
    requireState(await findJob(deps.store, jobId), EMBEDDABLE, 'embed');
    const name = req.collection_name ?? defaultCollectionName(jobId);
    const provider = await resolveProvider({ ...req, provider: req.provider ?? 'local' }, { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net });
    const before = findCollection(db, name);
    if (before) assertSameModel(before, provider);
    // A remote model tells its dimension only by answering: ask once before accepting the request, also for
    // an existing collection, so a same-named model of another dimension is refused (409) here rather than
    // accepted and failed part-way.
    const dimensions = provider.dimensions ?? (await provider.embed(['dimension probe']))[0]?.length ?? 0;
    const accepted = db.transaction((tx) => {
      const job = tx.select({ status: jobs.status }).from(jobs).where(eq(jobs.jobId, jobId)).get();
      if (!job) throw new AppError('JOB_NOT_FOUND', `job ${jobId} does not exist`);
      requireState(job, EMBEDDABLE, 'embed');
      let collection = findCollection(tx, name);
      if (collection) assertSameModel(collection, { ...provider, dimensions });
      else {
        const now = isoNow(clock);
        collection = tx
          .insert(collections)
          .values({ name, provider: provider.provider, baseUrl: provider.baseUrl, model: provider.model, dimensions, quantization: req.quantization ?? 'f16', createdAt: now, updatedAt: now })
          .returning()
          .get();
      }
      const index = indexOf(collection);
      const plan = planEmbedding(tx, jobId, name, (key) => index.has(BigInt(key)));
      const now = isoNow(clock);
      tx.update(jobs).set({ status: 'embedding', errorCode: null, errorMessage: null, updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
      tx.insert(jobIndexes)
        .values({ jobId, collection: name, chunksEmbedded: 0, chunksTotal: plan.todo.length, updatedAt: now })
        .onConflictDoUpdate({ target: jobIndexes.jobId, set: { collection: name, chunksEmbedded: 0, chunksTotal: plan.todo.length, updatedAt: now } })
        .run();
      return { collection, plan };
    });
    const controller = new AbortController();
    const done = run(jobId, accepted.collection, accepted.plan, provider, controller.signal).finally(() => running.delete(jobId));
    running.set(jobId, { controller, done });
    return {
      job_id: jobId,
      status: 'embedding' as const,
      collection_name: name,
      collection: name,
      // The commit bumps the version once (core/indexing: commit); the number it will then read.
      index_version: String(accepted.collection.indexVersion + 1),
      provider: provider.provider,
      model: provider.model,
      vector_db: 'usearch' as const,
      dimensions,
      quantization: accepted.collection.quantization,
      chunks: { accepted: accepted.plan.wanted, to_embed: accepted.plan.todo.length, unchanged: accepted.plan.unchanged, removed: accepted.plan.remove.length },
    };
  }

  async function embedAll(jobId: string, todo: ChunkToEmbed[], provider: EmbeddingProvider, dimensions: number, signal: AbortSignal) {
    const vectors = new Float32Array(todo.length * dimensions);
    let done = 0;
    const batches: ChunkToEmbed[][] = [];
    for (let i = 0; i < todo.length; i += provider.batchSize) batches.push(todo.slice(i, i + provider.batchSize));
    // As many batches in flight as the pool has threads (local) or two requests (remote), in order.
    const width = provider.provider === 'local' ? Math.max(1, deps.pool.threads) : 2;
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const b = next++;
        const batch = batches[b]!;
        const got = await provider.embed(batch.map((c) => c.text), signal);
        if (signal.aborted) throw signal.reason;
        got.forEach((v, j) => {
          if (v.length !== dimensions) throw new AppError('INDEX_MISMATCH', `${provider.model} returned ${v.length}-d vectors for a ${dimensions}-d collection`);
          vectors.set(v, (b * provider.batchSize + j) * dimensions);
        });
        done += batch.length;
        db.update(jobIndexes).set({ chunksEmbedded: done, updatedAt: isoNow(clock) }).where(eq(jobIndexes.jobId, jobId)).run();
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, batches.length) }, worker));
    return vectors;
  }

  async function run(jobId: string, collection: CollectionRow, plan: EmbeddingPlan, provider: EmbeddingProvider, signal: AbortSignal): Promise<void> {
    try {
      const vectors = await embedAll(jobId, plan.todo, provider, collection.dimensions, signal);
      commit(jobId, collection, plan, vectors);
      log.info({ jobId, collection: collection.name, embedded: plan.todo.length, unchanged: plan.unchanged }, 'job indexed');
    } catch (err) {
      if (!findJobOrNull(jobId)) return; // deleted meanwhile: its rows are gone and nothing reached the index
      const failure = closing && signal.aborted ? null : describeFailure(err);
      if (failure) log.warn({ jobId, failure }, 'embedding failed');
      db.update(jobs)
        .set({ status: restingState(jobId), errorCode: failure?.code ?? null, errorMessage: failure?.message ?? null, updatedAt: isoNow(clock) })
        .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'embedding')))
        .run();
    }
  }

  const findJobOrNull = (jobId: string) => db.select({ status: jobs.status }).from(jobs).where(eq(jobs.jobId, jobId)).get();

  /** Index file first (saved atomically), then the mapping in one transaction; all synchronous. */
  function commit(jobId: string, collection: CollectionRow, plan: EmbeddingPlan, vectors: Float32Array): void {
    if (findJobOrNull(jobId)?.status !== 'embedding') return;
    const n = plan.todo.length;
    // Keys are handed out before the file is written and never reused: a key left in the file by a crash
    // before the mapping commit names no chunk, and search drops keys it cannot map.
    const first = db
      .update(collections)
      .set({ nextKey: sql`${collections.nextKey} + ${n}` })
      .where(eq(collections.name, collection.name))
      .returning({ next: collections.nextKey })
      .get()!.next - n;
    const byCollection = new Map<string, number[]>();
    for (const r of plan.remove) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.key]);
    const index = indexOf(collection);
    index.remove((byCollection.get(collection.name) ?? []).map(BigInt));
    index.add(plan.todo.map((_, i) => BigInt(first + i)), vectors);
    index.save();
    for (const [other, keys] of byCollection) {
      if (other === collection.name) continue;
      const row = findCollection(db, other);
      if (!row) continue;
      const otherIndex = indexOf(row);
      otherIndex.remove(keys.map(BigInt));
      otherIndex.save();
    }
    db.transaction((tx) => {
      const now = isoNow(clock);
      for (let i = 0; i < plan.remove.length; i += 500) {
        tx.delete(chunkVectors).where(inArray(chunkVectors.id, plan.remove.slice(i, i + 500).map((r) => r.id))).run();
      }
      for (let i = 0; i < n; i += 200) {
        tx.insert(chunkVectors)
          .values(plan.todo.slice(i, i + 200).map((c, j) => ({ collection: collection.name, key: first + i + j, jobId, chunkId: c.chunkId, text: c.text, textHash: c.textHash, createdAt: now })))
          .run();
      }
      for (const name of new Set([collection.name, ...byCollection.keys()])) {
        tx.update(collections).set({ indexVersion: sql`${collections.indexVersion} + 1`, updatedAt: now }).where(eq(collections.name, name)).run();
      }
      tx.update(jobIndexes).set({ chunksEmbedded: n, chunksTotal: n, indexedAt: now, updatedAt: now }).where(eq(jobIndexes.jobId, jobId)).run();
      tx.update(jobs).set({ status: 'indexed', updatedAt: now }).where(eq(jobs.jobId, jobId)).run();
    });
  }

  return {
    embedJob,

    /** Resolves when the job's running embed, if any, has ended, whichever way it ended (its job row says how). */
    finished(jobId: string): Promise<void> {
      return running.get(jobId)?.done.catch(() => undefined) ?? Promise.resolve();
    },

    /** Where the job is indexed and how far an embed has got, for GET /jobs/{job_id}. */
    status(jobId: string) {
      const row = db.select().from(jobIndexes).where(eq(jobIndexes.jobId, jobId)).get();
      if (!row) return null;
      const c = findCollection(db, row.collection);
      const vectors = db.select({ n: sql<number>`count(*)` }).from(chunkVectors).where(and(eq(chunkVectors.jobId, jobId), eq(chunkVectors.collection, row.collection))).get()?.n ?? 0;
      return {
        collection_name: row.collection,
        provider: c?.provider ?? null,
        model: c?.model ?? null,
        dimensions: c?.dimensions ?? null,
        vectors,
        progress: { chunks_embedded: row.chunksEmbedded, chunks_total: row.chunksTotal },
        indexed_at: row.indexedAt,
      };
    },

    /** Takes a job's vectors out of every index (before its rows go with the job); stops its embed. */
    removeJob(jobId: string): number {
      running.get(jobId)?.controller.abort(new AppError('INVALID_STATE', 'the job was deleted'));
      const rows = db.select({ collection: chunkVectors.collection, key: chunkVectors.key }).from(chunkVectors).where(eq(chunkVectors.jobId, jobId)).all();
      for (const name of new Set(rows.map((r) => r.collection))) {
        const c = findCollection(db, name);
        if (!c) continue;
        const index = indexOf(c);
        index.remove(rows.filter((r) => r.collection === name).map((r) => BigInt(r.key)));
        index.save();
      }
      return rows.length;
    },

    /** Removes a collection whose jobs are gone: its row and its index files (a bot's, on delete). */
    dropCollection(name: string): void {
      db.delete(chunkVectors).where(eq(chunkVectors.collection, name)).run();
      db.delete(collections).where(eq(collections.name, name)).run();
      indexes.drop(name);
    },

    /** Opens every collection's index, and puts jobs whose embed was cut off by a stop back to rest. */
    start(): void {
      indexes.openAll(db.select().from(collections).all());
      const stuck = db.select({ jobId: jobs.jobId }).from(jobs).where(eq(jobs.status, 'embedding')).all();
      for (const { jobId } of stuck) db.update(jobs).set({ status: restingState(jobId), updatedAt: isoNow(clock) }).where(eq(jobs.jobId, jobId)).run();
      if (stuck.length) log.info({ jobs: stuck.length }, 'embeds interrupted by the last stop: embed those jobs again');
    },

    async close(): Promise<void> {
      closing = true;
      for (const r of running.values()) r.controller.abort(new AppError('INVALID_STATE', 'the server is stopping'));
      await Promise.allSettled([...running.values()].map((r) => r.done));
    },
  };
}
export type Indexer = ReturnType<typeof createIndexer>;

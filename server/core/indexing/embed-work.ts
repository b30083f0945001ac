import type { ModelManager } from '../../models/manager.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { resolveProvider, type EmbeddingProvider } from '../embedding/providers.js';
import type { EmbedOrder } from '../jobs/job-queue.js';
import type { Logger } from '../jobs/job-runner.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { assertSameModel, type CollectionRecord } from './collections.js';
import { planEmbedding, type ChunkToEmbed, type EmbeddingPlan } from './plan.js';

export interface EmbedWorkDeps {
  store: Store;
  pool: TaskPool;
  models: ModelManager;
  clock: Clock;
  log: Logger;
  defaultModel: string;
  /** Remote embedding providers are reached through it. */
  net: GuardedFetch;
}

/** What the job runner gives an embed while it runs. */
export interface EmbedHooks {
  /** Chunks embedded so far, of `total` (the job's row is written here; this is for the claim). */
  progress(embedded: number, total: number): void;
  /** Still this node's to commit (a claim can be taken away while the pool embeds). */
  stillHeld(): Promise<boolean>;
  /** Called inside the commit's transaction; false rolls it back (another node holds the embed now). */
  complete(): Promise<boolean>;
}

/** How an embed ended without failing: indexed; the job was not embedding (nothing to do); or taken away. */
export type EmbedOutcome = 'indexed' | 'not_embedding' | 'lost';

/** Batches in flight at once: as many as the pool has threads (local), or two requests (remote). */
export const embedWidth = (provider: EmbeddingProvider, poolThreads: number): number =>
  provider.provider === 'local' ? Math.max(1, poolThreads) : 2;

/**
 * Embeds texts in the provider's batches, `width` batches in flight, into one array in the texts' order;
 * `onBatch` hears how many are done after each batch. Every batch in flight ends before this does (a failure
 * stops the others taking more): work that was stopped leaves no model run behind on the pool, which
 * closing the pool would cut off mid-way.
 */
export async function embedInBatches(
  provider: EmbeddingProvider,
  texts: string[],
  dimensions: number,
  width: number,
  signal: AbortSignal,
  onBatch?: (done: number) => Promise<void>,
): Promise<Float32Array> {
  const out = new Float32Array(texts.length * dimensions);
  let done = 0;
  const starts: number[] = [];
  for (let i = 0; i < texts.length; i += provider.batchSize) starts.push(i);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < starts.length && !failed) {
      const at = starts[next++]!;
      const batch = texts.slice(at, at + provider.batchSize);
      const got = await provider.embed(batch, signal);
      if (signal.aborted) throw signal.reason;
      got.forEach((v, j) => {
        if (v.length !== dimensions)
          throw new AppError(
            'INDEX_MISMATCH',
            `${provider.model} returned ${v.length}-d vectors for a ${dimensions}-d collection`,
          );
        out.set(v, (at + j) * dimensions);
      });
      done += batch.length;
      await onBatch?.(done);
    }
  };
  const ended = await Promise.allSettled(
    Array.from({ length: Math.min(width, starts.length) }, () =>
      worker().catch((err: unknown) => {
        failed = true;
        throw err;
      }),
    ),
  );
  const failure = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

/**
 * The work of an embed, on whichever node runs it (the job runner calls it for the queue's embed claims):
 * the plan is made from the job's rows as they are now, so an embed taken over from a node that died does
 * what that one did not commit, nothing twice. Vectors are written (durably) before their chunk_vectors
 * rows are committed, so an embed cut short leaves the previous index intact and the job re-embeddable.
 */
export function createEmbedWork(deps: EmbedWorkDeps) {
  const { store, clock, log } = deps;
  const vectors = store.search.vectors;

  async function embedAll(
    jobId: string,
    todo: ChunkToEmbed[],
    provider: EmbeddingProvider,
    dimensions: number,
    signal: AbortSignal,
    hooks: EmbedHooks,
  ) {
    return embedInBatches(
      provider,
      todo.map((c) => c.text),
      dimensions,
      embedWidth(provider, deps.pool.threads),
      signal,
      async (done) => {
        await store.collections.progress(jobId, done, isoNow(clock));
        hooks.progress(done, todo.length);
      },
    );
  }

  const jobExists = async (jobId: string) => (await store.lookups.existingJobs([jobId])).has(jobId);

  /** Vectors first (each collection's write durable on its own), then the rows in one transaction. */
  async function commit(
    jobId: string,
    collection: CollectionRecord,
    plan: EmbeddingPlan,
    embedded: Float32Array,
    language: string | null,
    hooks: EmbedHooks,
  ): Promise<boolean> {
    if (!(await jobExists(jobId)))
      throw new AppError('INVALID_STATE', `job ${jobId} was deleted while it was embedding`);
    const n = plan.todo.length;
    // Keys are handed out before the vectors are written and never reused: a key written by an embed cut
    // short before its rows were committed names no chunk, and search drops keys it cannot map.
    const first = await store.collections.reserveKeys(collection.name, n);
    const byCollection = new Map<string, number[]>();
    for (const r of plan.remove) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.key]);
    await vectors.write(collection, {
      remove: byCollection.get(collection.name) ?? [],
      add: { keys: plan.todo.map((_, i) => first + i), vectors: embedded },
    });
    for (const [other, keys] of byCollection) {
      if (other === collection.name) continue;
      const row = await store.collections.find(other);
      if (row) await vectors.write(row, { remove: keys });
    }
    const lost = new Error('lost');
    try {
      await store.transaction(async (tx) => {
        const now = isoNow(clock);
        if (!(await tx.collections.finishEmbed(jobId, n, now)))
          throw new AppError('INVALID_STATE', `job ${jobId} is no longer embedding`);
        // A reindex switched the collection to another index while this embed ran: its vectors went to the old one.
        if ((await tx.collections.find(collection.name))?.vector_index !== collection.vector_index)
          throw new AppError(
            'INDEX_MISMATCH',
            `collection ${collection.name} was reindexed meanwhile; embed the job again`,
          );
        await tx.collections.replaceVectors(
          plan.remove.map((r) => r.id),
          plan.todo.map((c, i) => ({
            collection: collection.name,
            key: first + i,
            job_id: jobId,
            chunk_id: c.chunk_id,
            text: c.text,
            text_hash: c.text_hash,
            language,
            created_at: now,
          })),
        );
        await tx.collections.bumpVersions([...new Set([collection.name, ...byCollection.keys()])], now);
        if (!(await hooks.complete())) throw lost;
      });
    } catch (err) {
      if (err === lost) return false;
      throw err;
    }
    return true;
  }

  return {
    /**
     * Embeds the job (in `embedding`) as `order` says and commits it; the job is then `indexed`. Throws
     * what made it fail (the caller puts the job back to rest with it), or the signal's reason once aborted.
     */
    async run(jobId: string, order: EmbedOrder, signal: AbortSignal, hooks: EmbedHooks): Promise<EmbedOutcome> {
      const job = await store.jobs.get(jobId);
      if (job?.status !== 'embedding') return 'not_embedding';
      const collection = await store.collections.find(order.collection);
      if (!collection)
        throw new AppError(
          'COLLECTION_NOT_FOUND',
          `collection ${order.collection} was removed while job ${jobId} waited to be embedded into it`,
        );
      const provider = await resolveProvider(
        { provider: order.provider, model: order.model, base_url: order.base_url ?? undefined, api_key: order.api_key },
        { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
      );
      assertSameModel(collection, { ...provider, dimensions: provider.dimensions ?? collection.dimensions });
      const plan = await planEmbedding({ collections: store.collections, vectors }, jobId, collection);
      // Taken over from a node that died: its progress is not this one's.
      if ((await store.collections.jobIndex(jobId))?.chunks_embedded)
        await store.collections.progress(jobId, 0, isoNow(clock));
      const embedded = await embedAll(jobId, plan.todo, provider, collection.dimensions, signal, hooks);
      if (signal.aborted) throw signal.reason;
      // Another node may have taken the embed while this one worked: it commits, not this one.
      if (!(await hooks.stillHeld())) return 'lost';
      // The document's language, as detected when it was read: its chunks are found by their stems in it.
      const language = job.detected_language?.code ?? null;
      if (!(await commit(jobId, collection, plan, embedded, language, hooks))) return 'lost';
      log.info(
        { jobId, collection: collection.name, embedded: plan.todo.length, unchanged: plan.unchanged },
        'job indexed',
      );
      return 'indexed';
    },
  };
}
export type EmbedWork = ReturnType<typeof createEmbedWork>;

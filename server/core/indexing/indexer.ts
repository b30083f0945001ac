import type { ModelManager } from '../../models/manager.js';
import type { VectorQuantization } from '../../store/repos/collections-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError, describeFailure } from '../errors.js';
import { resolveProvider, type EmbeddingProvider, type ProviderChoice } from '../embedding/providers.js';
import { findJob } from '../jobs/find-job.js';
import type { Logger } from '../jobs/job-runner.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { requireState } from '../review/review-state.js';
import { assertSameModel, defaultCollectionName, type CollectionRecord } from './collections.js';
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
  store: Store;
  pool: TaskPool;
  models: ModelManager;
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
 * `indexed`. Vectors are written (durably) before their chunk_vectors rows are committed, so a crash
 * part-way leaves the previous index intact and the job re-embeddable.
 */
export function createIndexer(deps: IndexerDeps) {
  const { store, clock, log } = deps;
  const vectors = store.search.vectors;
  const running = new Map<string, Run>();
  let closing = false;

  async function embedJob(jobId: string, req: EmbedRequest) {
    requireState(await findJob(store, jobId), EMBEDDABLE, 'embed');
    const name = req.collection_name ?? defaultCollectionName(jobId);
    const provider = await resolveProvider({ ...req, provider: req.provider ?? 'local' }, { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net });
    const before = await store.collections.find(name);
    if (before) assertSameModel(before, provider);
    // A remote model tells its dimension only by answering: ask once before accepting the request, also for
    // an existing collection, so a same-named model of another dimension is refused (409) here rather than
    // accepted and failed part-way.
    const dimensions = provider.dimensions ?? (await provider.embed(['dimension probe']))[0]?.length ?? 0;
    const accepted = await store.transaction(async (tx) => {
      const collection = await tx.collections.ensure({
        name, provider: provider.provider, base_url: provider.baseUrl, model: provider.model, dimensions, quantization: req.quantization ?? 'f16', created_at: isoNow(clock),
      });
      assertSameModel(collection, { ...provider, dimensions });
      const plan = await planEmbedding({ collections: tx.collections, vectors }, jobId, collection);
      if (!(await tx.collections.beginEmbed(jobId, name, plan.todo.length, EMBEDDABLE, isoNow(clock)))) {
        // Another request got there first (or the job went): say why, and leave no collection behind.
        requireState(await findJob(tx, jobId), EMBEDDABLE, 'embed');
        throw new AppError('INVALID_STATE', `job ${jobId} could not start embedding; try again`);
      }
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
      index_version: String(accepted.collection.index_version + 1),
      provider: provider.provider,
      model: provider.model,
      vector_db: 'usearch' as const,
      dimensions,
      quantization: accepted.collection.quantization,
      chunks: { accepted: accepted.plan.wanted, to_embed: accepted.plan.todo.length, unchanged: accepted.plan.unchanged, removed: accepted.plan.remove.length },
    };
  }

  async function embedAll(jobId: string, todo: ChunkToEmbed[], provider: EmbeddingProvider, dimensions: number, signal: AbortSignal) {
    const out = new Float32Array(todo.length * dimensions);
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
          out.set(v, (b * provider.batchSize + j) * dimensions);
        });
        done += batch.length;
        await store.collections.progress(jobId, done, isoNow(clock));
      }
    };
    await Promise.all(Array.from({ length: Math.min(width, batches.length) }, worker));
    return out;
  }

  async function run(jobId: string, collection: CollectionRecord, plan: EmbeddingPlan, provider: EmbeddingProvider, signal: AbortSignal): Promise<void> {
    try {
      const embedded = await embedAll(jobId, plan.todo, provider, collection.dimensions, signal);
      await commit(jobId, collection, plan, embedded);
      log.info({ jobId, collection: collection.name, embedded: plan.todo.length, unchanged: plan.unchanged }, 'job indexed');
    } catch (err) {
      try {
        if (!(await jobExists(jobId))) return; // deleted meanwhile: its rows are gone and its vectors were taken out
        const failure = closing && signal.aborted ? null : describeFailure(err);
        if (failure) log.warn({ jobId, failure }, 'embedding failed');
        await store.collections.restEmbed(jobId, failure, isoNow(clock));
      } catch (again) {
        log.error({ jobId, err: again }, 'an embed that failed could not put its job back to rest');
      }
    }
  }

  const jobExists = async (jobId: string) => (await store.lookups.existingJobs([jobId])).has(jobId);

  /** Vectors first (each collection's write durable on its own), then the rows in one transaction. */
  async function commit(jobId: string, collection: CollectionRecord, plan: EmbeddingPlan, embedded: Float32Array): Promise<void> {
    if (!(await jobExists(jobId))) throw new AppError('INVALID_STATE', `job ${jobId} was deleted while it was embedding`);
    const n = plan.todo.length;
    // Keys are handed out before the vectors are written and never reused: a key written by an embed cut
    // short before its rows were committed names no chunk, and search drops keys it cannot map.
    const first = await store.collections.reserveKeys(collection.name, n);
    const byCollection = new Map<string, number[]>();
    for (const r of plan.remove) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.key]);
    await vectors.write(collection, { remove: byCollection.get(collection.name) ?? [], add: { keys: plan.todo.map((_, i) => first + i), vectors: embedded } });
    for (const [other, keys] of byCollection) {
      if (other === collection.name) continue;
      const row = await store.collections.find(other);
      if (row) await vectors.write(row, { remove: keys });
    }
    await store.transaction(async (tx) => {
      const now = isoNow(clock);
      if (!(await tx.collections.finishEmbed(jobId, n, now))) throw new AppError('INVALID_STATE', `job ${jobId} is no longer embedding`);
      await tx.collections.replaceVectors(
        plan.remove.map((r) => r.id),
        plan.todo.map((c, i) => ({ collection: collection.name, key: first + i, job_id: jobId, chunk_id: c.chunk_id, text: c.text, text_hash: c.text_hash, created_at: now })),
      );
      await tx.collections.bumpVersions([...new Set([collection.name, ...byCollection.keys()])], now);
    });
  }

  return {
    embedJob,

    /** Resolves when the job's running embed, if any, has ended, whichever way it ended (its job row says how). */
    finished(jobId: string): Promise<void> {
      return running.get(jobId)?.done.catch(() => undefined) ?? Promise.resolve();
    },

    /** Where the job is indexed and how far an embed has got, for GET /jobs/{job_id}. */
    async status(jobId: string) {
      const row = await store.collections.jobIndex(jobId);
      if (!row) return null;
      const [c, count] = await Promise.all([store.collections.find(row.collection), store.collections.countVectors(jobId, row.collection)]);
      return {
        collection_name: row.collection,
        provider: c?.provider ?? null,
        model: c?.model ?? null,
        dimensions: c?.dimensions ?? null,
        vectors: count,
        progress: { chunks_embedded: row.chunks_embedded, chunks_total: row.chunks_total },
        indexed_at: row.indexed_at,
      };
    },

    /** Takes a job's vectors out of every collection (before its rows go with the job); stops its embed. */
    async removeJob(jobId: string): Promise<number> {
      running.get(jobId)?.controller.abort(new AppError('INVALID_STATE', 'the job was deleted'));
      const rows = await store.collections.vectorsOfJob(jobId);
      for (const name of new Set(rows.map((r) => r.collection))) {
        const c = await store.collections.find(name);
        if (c) await vectors.write(c, { remove: rows.filter((r) => r.collection === name).map((r) => r.key) });
      }
      return rows.length;
    },

    /** Removes a collection whose jobs are gone: its record and its vectors (a bot's, on delete). */
    async dropCollection(name: string): Promise<void> {
      await store.collections.remove(name);
      await vectors.drop(name);
    },

    /** Opens every collection's vectors, and puts jobs whose embed was cut off by a stop back to rest. */
    async start(): Promise<void> {
      await vectors.open(await store.collections.list());
      const stuck = await store.collections.restInterruptedEmbeds(isoNow(clock));
      if (stuck) log.info({ jobs: stuck }, 'embeds interrupted by the last stop: embed those jobs again');
    },

    async close(): Promise<void> {
      closing = true;
      for (const r of running.values()) r.controller.abort(new AppError('INVALID_STATE', 'the server is stopping'));
      await Promise.allSettled([...running.values()].map((r) => r.done));
    },
  };
}
export type Indexer = ReturnType<typeof createIndexer>;

import type { JobIndexRecord, VectorQuantization } from '../../store/repos/collections-repo.js';
import { isoNow } from '../clock.js';
import { AppError } from '../errors.js';
import { resolveProvider, type ProviderChoice } from '../embedding/providers.js';
import { findJob } from '../jobs/find-job.js';
import type { EmbedOrder } from '../jobs/job-queue.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { JobWatch } from '../jobs/job-watch.js';
import { requireState } from '../review/review-state.js';
import { vectorIndexName } from '../../store/repos/search-index.js';
import { assertSameModel, defaultCollectionName, refuseWhileReindexing } from './collections.js';
import { planEmbedding } from './plan.js';
import type { EmbedWorkDeps } from './embed-work.js';

export interface EmbedRequest extends Omit<ProviderChoice, 'provider'> {
  /** local unless named. */
  provider?: ProviderChoice['provider'];
  vector_db?: 'usearch';
  collection_name?: string;
  /** For a new collection only: how the index stores vectors (f16 keeps f32's recall at half the size). */
  quantization?: VectorQuantization;
}

/** What embedding needs (the indexer checks an order with it before queueing), and where orders go. */
export interface IndexerDeps extends EmbedWorkDeps {
  /** Where accepted embeds go: the job runner's queue (the embedding itself is core/indexing/embed-work.ts). */
  runner: Pick<JobRunner, 'enqueueEmbed'>;
  /** Hears of job changes on every node (an embed's end among them). */
  watch: Pick<JobWatch, 'watch'>;
}

const EMBEDDABLE = ['finalized', 'indexed'];
/** How often finished() looks at the job itself, should a change notice be lost (a node's listener reconnecting). */
const FINISHED_POLL_MS = 2000;

/**
 * Embeds a finalized job's approved and edited chunks into a collection, in the background: the request
 * is checked (state, model, collection) and answered at once, the job shows `embedding` with progress, then
 * `indexed`. The request moves the job to `embedding` and queues its embed in one transaction; the job
 * runner runs it (core/indexing/embed-work.ts): at once in this process on the desktop, on whichever node
 * takes it from a team server's shared queue.
 */
export function createIndexer(deps: IndexerDeps) {
  const { store, clock, log } = deps;
  const vectors = store.search.vectors;
  /** How finished() calls stop looking, at close (they never resolve then: the process is stopping). */
  const waits = new Set<() => void>();

  async function embedJob(jobId: string, req: EmbedRequest) {
    requireState(await findJob(store, jobId), EMBEDDABLE, 'embed');
    const name = req.collection_name ?? defaultCollectionName(jobId);
    const provider = await resolveProvider(
      { ...req, provider: req.provider ?? 'local' },
      { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
    );
    const before = await store.collections.find(name);
    if (before) assertSameModel(before, provider);
    // A remote model tells its dimension only by answering: ask once before accepting the request, also for
    // an existing collection, so a same-named model of another dimension is refused (409) here rather than
    // accepted and failed part-way.
    const dimensions = provider.dimensions ?? (await provider.embed(['dimension probe']))[0]?.length ?? 0;
    const order: EmbedOrder = {
      collection: name,
      provider: provider.provider,
      model: provider.model,
      base_url: provider.baseUrl,
      ...(req.api_key ? { api_key: req.api_key } : {}),
    };
    const accepted = await store.transaction(async (tx) => {
      const collection = await tx.collections.ensure({
        name,
        provider: provider.provider,
        base_url: provider.baseUrl,
        model: provider.model,
        dimensions,
        quantization: req.quantization ?? 'f16',
        created_at: isoNow(clock),
      });
      assertSameModel(collection, { ...provider, dimensions });
      await refuseWhileReindexing(tx, name);
      const plan = await planEmbedding({ collections: tx.collections, vectors }, jobId, collection);
      if (!(await tx.collections.beginEmbed(jobId, name, plan.todo.length, EMBEDDABLE, isoNow(clock)))) {
        // Another request got there first (or the job went): say why, and leave no collection behind.
        requireState(await findJob(tx, jobId), EMBEDDABLE, 'embed');
        throw new AppError('INVALID_STATE', `job ${jobId} could not start embedding; try again`);
      }
      // Queued with the move to `embedding`, or neither: a job embedding always has its embed under way.
      const start = await deps.runner.enqueueEmbed(jobId, order);
      return { collection, plan, start };
    });
    // Outside the transaction: an embed this node runs must not run inside it.
    accepted.start();
    return {
      job_id: jobId,
      status: 'embedding' as const,
      collection_name: name,
      collection: name,
      // The commit bumps the version once (core/indexing/embed-work.ts: commit); the number it will then read.
      index_version: String(accepted.collection.index_version + 1),
      provider: provider.provider,
      model: provider.model,
      vector_db: 'usearch' as const,
      dimensions,
      quantization: accepted.collection.quantization,
      chunks: {
        accepted: accepted.plan.wanted,
        to_embed: accepted.plan.todo.length,
        unchanged: accepted.plan.unchanged,
        removed: accepted.plan.remove.length,
      },
    };
  }

  /** Where the job is indexed and how far an embed has got, for GET /jobs/{job_id}, from its index row (null: not embedded). */
  async function statusOf(row: JobIndexRecord | null) {
    if (!row) return null;
    const [c, count] = await Promise.all([
      store.collections.find(row.collection),
      store.collections.countVectors(row.job_id, row.collection),
    ]);
    return {
      collection_name: row.collection,
      provider: c?.provider ?? null,
      model: c?.model ?? null,
      dimensions: c?.dimensions ?? null,
      vectors: count,
      progress: { chunks_embedded: row.chunks_embedded, chunks_total: row.chunks_total },
      indexed_at: row.indexed_at,
    };
  }

  return {
    embedJob,

    /**
     * Resolves once the job is no longer `embedding`, whichever way its embed ended and on whichever node it
     * ran (its job row says how); at once if it is not embedding. Told by the job's change notices, which
     * reach every node, and by a slow look of its own should one be lost.
     */
    finished(jobId: string): Promise<void> {
      return new Promise<void>((resolve) => {
        let ended = false;
        const stop = (): void => {
          unwatch();
          clearInterval(poll);
          waits.delete(stop);
        };
        const end = (): void => {
          if (ended) return;
          ended = true;
          stop();
          resolve();
        };
        const look = (): void => {
          store.jobs.get(jobId).then(
            (job) => {
              if (job?.status !== 'embedding') end();
            },
            (err: unknown) => log.warn({ jobId, err }, 'could not look whether an embed ended'),
          );
        };
        const unwatch = deps.watch.watch(jobId, look);
        const poll = setInterval(look, FINISHED_POLL_MS);
        poll.unref();
        waits.add(stop);
        look();
      });
    },

    statusOf,

    /** Takes a job's vectors out of every collection (before its rows go with the job; its embed was stopped by the runner's abort). */
    async removeJob(jobId: string): Promise<number> {
      const rows = await store.collections.vectorsOfJob(jobId);
      for (const name of new Set(rows.map((r) => r.collection))) {
        const c = await store.collections.find(name);
        if (c) await vectors.write(c, { remove: rows.filter((r) => r.collection === name).map((r) => r.key) });
      }
      return rows.length;
    },

    /** Removes a collection whose jobs are gone: its record and its vectors (a bot's, on delete), a reindex's too. */
    async dropCollection(name: string): Promise<void> {
      const [c, reindex] = await Promise.all([store.collections.find(name), store.collections.lastReindex(name)]);
      await store.collections.remove(name);
      const names = new Set([c ? vectorIndexName(c) : name, reindex?.vector_index, reindex?.drop_index]);
      for (const n of names) if (n) await vectors.drop(n);
    },

    /** Opens every collection's vectors (jobs whose embed a stop cut off are put back to rest by the job runner's resume). */
    async start(): Promise<void> {
      await vectors.open(await store.collections.list());
    },

    /** Stops looking whether embeds ended (they go on, on other nodes, or rest until the next start). */
    async close(): Promise<void> {
      for (const stop of [...waits]) stop();
    },
  };
}
export type Indexer = ReturnType<typeof createIndexer>;

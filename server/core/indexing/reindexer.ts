import { randomUUID } from 'node:crypto';
import type { CollectionRecord, ReindexRecord } from '../../store/repos/collections-repo.js';
import { isoNow } from '../clock.js';
import { AppError } from '../errors.js';
import { resolveProvider, type ProviderChoice } from '../embedding/providers.js';
import { requireCollection } from './collections.js';
import type { EmbedWorkDeps } from './embed-work.js';
import type { ReindexRunner } from './reindex-runner.js';
import type { ReindexWork } from './reindex-work.js';

export interface ReindexRequest {
  /** A GET /models id for local (the default provider); the remote model's name otherwise. */
  embedding_model: string;
  provider?: ProviderChoice['provider'];
  base_url?: string;
}

export interface ReindexerDeps extends EmbedWorkDeps {
  runner: Pick<ReindexRunner, 'enqueue' | 'cancel'>;
  work: Pick<ReindexWork, 'dropLeftIndex'>;
}

/** A reindex as the API shows it, with the model the collection has now. */
function viewOf(r: ReindexRecord, c: CollectionRecord) {
  return {
    reindex_id: r.reindex_id,
    collection_name: r.collection,
    state: r.state,
    provider: r.provider,
    model: r.model,
    dimensions: r.dimensions,
    progress: { chunks_done: r.chunks_done, chunks_total: r.chunks_total },
    error: r.error,
    created_at: r.created_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at,
    collection: {
      provider: c.provider,
      model: c.model,
      dimensions: c.dimensions,
      index_version: String(c.index_version),
    },
  };
}

/**
 * Re-embeds a collection with another model in the background (POST/GET/DELETE /collections/{name}/reindex):
 * the request is checked (the collection, the model installed and not the collection's, no reindex running
 * and no embed under way into the collection) and answered at once; the work is reindex-work.ts's, run where
 * reindex-runner.ts says.
 */
export function createReindexer(deps: ReindexerDeps) {
  const { store, clock } = deps;

  async function start(name: string, req: ReindexRequest) {
    const c = await requireCollection(store, name);
    const provider = await resolveProvider(
      { provider: req.provider ?? 'local', model: req.embedding_model, base_url: req.base_url },
      { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
    );
    if (provider.provider === c.provider && provider.model === c.model && provider.baseUrl === c.base_url)
      throw new AppError('SAME_MODEL', `collection ${name} is already embedded with ${c.model}`, {
        collection_name: name,
        provider: c.provider,
        model: c.model,
      });
    const dimensions = provider.dimensions ?? (await provider.embed(['dimension probe']))[0]?.length ?? 0;
    const reindexId = randomUUID();
    const accepted = await store.transaction(async (tx) => {
      const running = await tx.collections.lastReindex(name);
      if (running?.state === 'running') throw runningError(name, running);
      const embedding = await tx.collections.embeddingInto(name);
      if (embedding > 0)
        throw new AppError(
          'INVALID_STATE',
          `${embedding} job(s) are embedding into collection ${name}; reindex once they end`,
          {
            collection_name: name,
          },
        );
      const now = await tx.collections.find(name);
      const r = await tx.collections.beginReindex({
        reindex_id: reindexId,
        collection: name,
        provider: provider.provider,
        base_url: provider.baseUrl,
        model: provider.model,
        dimensions,
        from_index: now?.vector_index ?? null,
        // `~` is in no collection name, so the new index's name is no collection's.
        vector_index: `${name}~${reindexId}`,
        created_at: isoNow(clock),
      });
      if (!r || !now) throw runningError(name, null);
      return { r, c: now, go: await deps.runner.enqueue(reindexId, name) };
    });
    accepted.go();
    return viewOf(accepted.r, accepted.c);
  }

  async function latest(name: string) {
    const c = await requireCollection(store, name);
    const r = await store.collections.lastReindex(name);
    if (!r)
      throw new AppError('REINDEX_NOT_FOUND', `collection ${name} has never been reindexed`, { collection_name: name });
    return { r, c };
  }

  return {
    start,

    /** The collection's latest reindex: running (with its progress) or how it ended. */
    async status(name: string) {
      const { r, c } = await latest(name);
      return viewOf(r, c);
    },

    /** Cancels the running reindex: the collection keeps its model and index; the partial index is dropped. */
    async cancel(name: string) {
      const { r } = await latest(name);
      if (!(await store.collections.endReindex(r.reindex_id, 'cancelled', null, isoNow(clock))))
        throw new AppError('INVALID_STATE', `the last reindex of collection ${name} is ${r.state}, not running`, {
          collection_name: name,
          state: r.state,
        });
      await deps.runner.cancel(r.reindex_id);
      await deps.work.dropLeftIndex(r.reindex_id);
      const after = await latest(name);
      return viewOf(after.r, after.c);
    },
  };
}
export type Reindexer = ReturnType<typeof createReindexer>;

function runningError(name: string, r: ReindexRecord | null): AppError {
  return new AppError(
    'REINDEX_RUNNING',
    `collection ${name} is being reindexed already${r ? ` (with ${r.model})` : ''}`,
    {
      collection_name: name,
      ...(r ? { reindex_id: r.reindex_id } : {}),
    },
  );
}

import type { ReindexRecord } from '../../store/repos/collections-repo.js';
import { vectorIndexName, type VectorCollectionSpec } from '../../store/repos/search-index.js';
import { isoNow } from '../clock.js';
import { AppError } from '../errors.js';
import { sleep } from '../sleep.js';
import { resolveProvider, type EmbeddingProvider, type ProviderName } from '../embedding/providers.js';
import { embedInBatches, embedWidth, type EmbedWorkDeps } from './embed-work.js';

/** How a reindex run ended without failing: switched; found ended (cancelled, or the collection gone); or taken away. */
export type ReindexOutcome = 'done' | 'ended' | 'lost';

/** Wait before looking again whether the embeds begun before the reindex have ended. */
const EMBEDS_WAIT_MS = 500;

/**
 * The work of a reindex, on whichever node runs it: every vector row of the collection is embedded with
 * the reindex's model into an index of its own (`vector_index`), page by page in key order, each page's
 * vectors written durably before the next. Keys the new index already holds are skipped, so a run taken
 * over after a stop (the desktop's next start, or another team node after a lease ran out) goes on where
 * the last one was. Searches meanwhile read the collection's own index, untouched. Once every row is there
 * and no embed into the collection is under way, one transaction switches the collection to the model and
 * the new index (store: switchToReindex), and the old index is dropped.
 */
export function createReindexWork(deps: EmbedWorkDeps) {
  const { store, clock, log } = deps;
  const vectors = store.search.vectors;

  /** One pass over the collection's rows: what the new index lacks is embedded into it. */
  async function embedMissing(
    r: ReindexRecord,
    target: VectorCollectionSpec,
    provider: EmbeddingProvider,
    signal: AbortSignal,
    stillHeld: () => Promise<boolean>,
  ): Promise<boolean> {
    const total = await store.collections.countKeys(r.collection);
    const width = embedWidth(provider, deps.pool.threads);
    const page = provider.batchSize * width;
    let done = 0;
    for (let after = 0; ; ) {
      const rows = await store.collections.keyedTexts(r.collection, after, page);
      const last = rows.at(-1);
      if (!last) break;
      after = last.key;
      const present = await vectors.present(
        target,
        rows.map((x) => x.key),
      );
      const todo = rows.filter((x) => !present.has(x.key));
      if (todo.length > 0) {
        const embedded = await embedInBatches(
          provider,
          todo.map((x) => x.text),
          target.dimensions,
          width,
          signal,
        );
        if (signal.aborted) throw signal.reason;
        await vectors.write(target, { add: { keys: todo.map((x) => x.key), vectors: embedded } });
      }
      done += rows.length;
      await store.collections.reindexProgress(r.reindex_id, Math.min(done, total), total, isoNow(clock));
      // Cancelled here or on another node, or the claim taken away: stop between pages.
      if (!(await stillHeld())) return false;
    }
    return true;
  }

  /** Drops the index a reindex left to drop (`drop_index`), then forgets it. */
  async function dropLeftIndex(reindexId: string): Promise<void> {
    const r = await store.collections.reindex(reindexId);
    if (!r?.drop_index) return;
    await vectors.drop(r.drop_index);
    await store.collections.droppedIndex(reindexId, isoNow(clock));
  }

  return {
    dropLeftIndex,

    /**
     * Runs the reindex to its switch. Throws what made it fail (the caller ends it failed), or the signal's
     * reason once aborted. `stillHeld` answers false once the reindex was cancelled or its claim taken away.
     */
    async run(reindexId: string, signal: AbortSignal, stillHeld: () => Promise<boolean>): Promise<ReindexOutcome> {
      const r = await store.collections.reindex(reindexId);
      if (r?.state !== 'running') return 'ended';
      const provider = await resolveProvider(
        { provider: r.provider as ProviderName, model: r.model, base_url: r.base_url ?? undefined },
        { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
      );
      const held = async () => (await store.collections.reindex(reindexId))?.state === 'running' && stillHeld();
      for (;;) {
        const c = await store.collections.find(r.collection);
        if (!c) return 'ended';
        if (c.vector_index !== r.from_index)
          throw new AppError('INDEX_MISMATCH', `collection ${c.name} moved to another index while it was reindexed`);
        const target = {
          name: c.name,
          dimensions: r.dimensions,
          quantization: c.quantization,
          vector_index: r.vector_index,
        };
        if (!(await embedMissing(r, target, provider, signal, held))) return 'lost';
        if (signal.aborted) throw signal.reason;
        const step = await store.transaction(async (tx) => {
          // Embeds begun before the reindex write the old model's vectors: the switch waits for them, then
          // a pass embeds their rows too (their keys come after `next_key` as it was).
          if ((await tx.collections.embeddingInto(c.name)) > 0) return 'wait' as const;
          if ((await tx.collections.find(c.name))?.next_key !== c.next_key) return 'again' as const;
          return (await tx.collections.switchToReindex(reindexId, isoNow(clock)))
            ? ('switched' as const)
            : ('ended' as const);
        });
        if (step === 'ended') return 'ended';
        if (step === 'switched') {
          log.info({ reindexId, collection: c.name, model: r.model, from: vectorIndexName(c) }, 'collection reindexed');
          await dropLeftIndex(reindexId);
          return 'done';
        }
        if (step === 'wait') await sleep(EMBEDS_WAIT_MS, signal);
        if (signal.aborted) throw signal.reason;
      }
    },
  };
}
export type ReindexWork = ReturnType<typeof createReindexWork>;

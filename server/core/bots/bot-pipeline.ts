import type { Logger } from 'pino';
import type { Store } from '../../store/store.js';
import { describeFailure } from '../errors.js';
import type { Indexer } from '../indexing/indexer.js';
import { botCollection, type BotsService } from './bots-service.js';

/** The states a bot document moves on from: read (to finalize), finalized (to embed), indexed (elsewhere). */
const ACTED_ON = new Set(['ready_for_review', 'finalized', 'indexed']);
/** Where a step's job is once another node has taken that step (finalize, then embed). */
const TAKEN = {
  finalize: new Set(['finalizing', 'finalized', 'embedding', 'indexed']),
  embed: new Set(['embedding', 'indexed']),
};

export interface BotPipelineDeps {
  store: Store;
  bots: BotsService;
  indexer: Pick<Indexer, 'embedJob' | 'finished'>;
  finalize: (jobId: string, policy: string, reviewer: string) => Promise<unknown>;
  log: Logger;
  /** Told of each document once it is in its bot's index (chat training marks the pairs it taught then). */
  learned?: (jobId: string) => unknown;
}

/**
 * Carries a bot's documents from read to searchable: a job that reaches review is finalized (pending items
 * approved) unless it was added for review, and a finalized job is embedded into the bot's collection.
 * Every step is decided from the job's row, so `settle` can run any number of times (after each change,
 * at start-up, on POST /bots/{id}/build) and does only what is missing.
 */
export function createBotPipeline(d: BotPipelineDeps) {
  // One settle at a time per job: a change notice arriving mid-way waits its turn instead of racing it.
  const running = new Map<string, Promise<void>>();

  async function step(jobId: string): Promise<void> {
    // Called on every change of every job, progress ticks included: one narrow read, and nothing more
    // unless the job is a bot's and has reached a state this pipeline acts on.
    const job = await d.store.bots.document(jobId);
    if (!job || !ACTED_ON.has(job.status)) return;
    const bot = await d.store.bots.get(job.bot_id);
    if (!bot) return;
    const collection = botCollection(bot.bot_id);
    const statusNow = async () => (await d.store.bots.document(jobId))?.status;
    const inBotIndex = async (status: string | undefined) =>
      status === 'indexed' && (await d.store.collections.jobIndex(jobId))?.collection === collection;
    /**
     * On a team server every API node hears the change: one of them takes the step, the others find the job
     * moved on (INVALID_STATE) and leave it to that one; false then.
     */
    const take = async (step: keyof typeof TAKEN, work: () => Promise<unknown>): Promise<boolean> => {
      try {
        await work();
        return true;
      } catch (err) {
        if ((err as { code?: string }).code !== 'INVALID_STATE') throw err;
        const now = await statusNow();
        if (now !== undefined && TAKEN[step].has(now)) return false;
        throw err;
      }
    };
    let status: string | undefined = job.status;
    if (status === 'ready_for_review') {
      if (job.source?.review) return;
      if (!(await take('finalize', () => d.finalize(jobId, 'auto_approve_pending', `bot:${bot.bot_id}`)))) return;
      // Read again only here: the status read above is still current on the other paths.
      status = await statusNow();
      if (status !== 'finalized' && status !== 'indexed') return;
    }
    if (!(await inBotIndex(status))) {
      // Finalized (just now, or before) or indexed into another collection: into the bot's. The embedding runs
      // on in the background and tells no one when it ends: wait for it here (this job's later notices wait
      // their turn behind it) and look at how it ended.
      // The collection's model once it has one: a reindex may have moved it off the bot's first model.
      const model = (await d.store.collections.find(collection))?.model ?? bot.embedding_model;
      if (!(await take('embed', () => d.indexer.embedJob(jobId, { collection_name: collection, model })))) return;
      await d.indexer.finished(jobId);
      status = await statusNow();
    }
    // In the bot's index, just now or before (also after a restart that came between the embedding and this).
    if (await inBotIndex(status)) await d.learned?.(jobId);
  }

  function settle(jobId: string): Promise<void> {
    const prev = running.get(jobId) ?? Promise.resolve();
    const next = prev
      .then(() => step(jobId))
      .catch(async (err: unknown) => {
        // A team server's database away for a moment is not the document's failure (recording it would
        // most likely fail too, or worse succeed once it is back): the next notice, or the look at every
        // document when the notices' connection is back (app.ts), carries it on.
        if (describeFailure(err).code === 'DATABASE_UNAVAILABLE')
          return d.log.warn({ jobId, err: describeFailure(err) }, 'bot document waits for the database');
        d.log.warn({ jobId, err }, 'bot document could not be made searchable');
        // Recorded on the job, so its ingest_status says failed (with why) instead of processing for ever.
        await d.store.bots.recordIndexFailure(jobId, describeFailure(err));
      })
      .catch((err: unknown) => d.log.error({ jobId, err }, 'the failure of a bot document could not be recorded'))
      .finally(() => {
        if (running.get(jobId) === next) running.delete(jobId);
      });
    running.set(jobId, next);
    return next;
  }

  return {
    /** Called on every change of any job; only a bot's documents are acted on. */
    jobChanged(jobId: string): void {
      void settle(jobId);
    },
    /**
     * Makes sure every finished document of the bot is in its index, and returns once it is: the steps it
     * starts and the embeds they (or earlier changes) set running have ended, so a client that builds and
     * then asks is answered from every document.
     */
    async build(botId: string): Promise<void> {
      const documents = await d.bots.documents(botId);
      await Promise.all(documents.map((j) => settle(j.job_id)));
      await Promise.all(documents.map((j) => d.indexer.finished(j.job_id)));
    },
    /** At start-up: documents left half-way by the last stop. */
    async resume(): Promise<void> {
      for (const jobId of await d.store.bots.allDocumentIds()) void settle(jobId);
    },
  };
}
export type BotPipeline = ReturnType<typeof createBotPipeline>;

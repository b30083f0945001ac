import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { buildServer } from './api/build-server.js';
import { systemClock, type Clock } from './core/clock.js';
import { createExporter } from './core/export/export-job.js';
import { createJobRunner } from './core/jobs/job-runner.js';
import { createJobsService } from './core/jobs/jobs-service.js';
import { createJobWatch } from './core/jobs/job-watch.js';
import { createTaskPool } from './core/pool.js';
import { createBlocksBulk } from './core/review/blocks-bulk.js';
import { createBlocksReview } from './core/review/blocks-review.js';
import { createChunksReview } from './core/review/chunks-review.js';
import { createFinalize } from './core/review/finalize.js';
import { createRechunk } from './core/review/rechunk.js';
import { createPageImages } from './core/pages/page-images.js';
import { createReocr } from './core/pages/reocr-page.js';
import { createPageList } from './core/pages/page-list.js';
import type { Settings } from './schemas/settings.js';
import { resolveApiKey } from './store/api-key.js';
import { findAppRoot } from './store/app-paths.js';
import { openDatabase } from './store/db.js';
import { createFileStore } from './store/file-store.js';
import { createModelManager } from './models/manager.js';
import { modelsDirOf } from './store/app-paths.js';
import { createCollectionIndexes } from './store/collection-indexes.js';
import { createIndexer } from './core/indexing/indexer.js';
import { createSearch } from './core/search/search.js';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { createChat } from './core/chat/chat-service.js';
import { createLlmRuntime } from './models/llm/llm-runtime.js';
import { netPolicyOf } from './config/net-policy.js';
import { createGuardedFetch } from './core/net/guarded-fetch.js';
import { createBotsStore } from './core/bots/bots-store.js';
import { createBotDocuments } from './core/bots/bot-documents.js';
import { createBotPipeline } from './core/bots/bot-pipeline.js';
import { createBotChat } from './core/bots/bot-chat.js';

export interface AppOptions {
  settings: Settings;
  /** SERVICE_API_KEY, read by the entry point (never deep inside modules). */
  serviceApiKey?: string;
  /** The built worker module (dist/worker.js, or out/main/worker.js under Electron). */
  workerFile: string;
  logger?: Logger;
  clock?: Clock;
  /** The built llama host (dist/llm-host.js); by default next to `workerFile`. */
  llmHostFile?: string;
}

/**
 * Composes the whole headless application: database, files, worker pool, services and the HTTP server.
 * `lectern serve`, Electron's main process and the tests all start Lectern through here. Jobs left
 * unfinished by a previous run are resumed.
 */
export async function createApp({ settings, serviceApiKey, workerFile, logger, clock = systemClock, llmHostFile }: AppOptions) {
  const log = logger ?? pino({ level: settings.log_level });
  const root = findAppRoot();
  const appVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  mkdirSync(settings.data_dir, { recursive: true });
  const database = openDatabase(join(settings.data_dir, 'lectern.db'), join(root, 'drizzle'));
  const { db } = database;
  const files = createFileStore(settings.data_dir);
  const apiKey = resolveApiKey(settings.data_dir, serviceApiKey);
  const pool = createTaskPool(workerFile, settings.workers, { warmUpRounds: settings.warm_up_rounds });
  // The one way out of the process: remote providers, model downloads and (bots) link and search readers.
  const net = createGuardedFetch(netPolicyOf(settings));
  const models = createModelManager({ modelsDir: modelsDirOf(settings.data_dir), net });
  const indexes = createCollectionIndexes(settings.data_dir);
  const embedding = { db, pool, models, indexes, defaultModel: settings.embedding_model, net };
  const indexer = createIndexer({ ...embedding, clock, log });
  indexer.start();
  const jobWatch = createJobWatch();
  const runner = createJobRunner({ db, pool, files, clock, log, watch: jobWatch });
  const rechunk = createRechunk({ db, pool, clock });
  // Nothing is loaded here: the llama host process starts on the first chat that needs it.
  const llm = createLlmRuntime({
    hostFile: llmHostFile ?? join(dirname(workerFile), 'llm-host.js'),
    // One core is left to the worker pool and the HTTP thread: a llama thread whose core is taken spins
    // waiting for it (bench:chat on 2 loaded cores: 1.9 tokens/s with 2 threads, 21.7 with 1).
    threads: settings.llm_threads || Math.max(1, Math.min(4, availableParallelism() - 1)),
    log,
  });
  const search = createSearch(embedding);
  const jobsService = createJobsService({ db, files, runner, clock, vectors: indexer, watch: jobWatch });
  const bots = createBotsStore({ db, clock, defaultEmbeddingModel: settings.embedding_model });
  const finalizeJob = createFinalize({ db, clock, rechunk });
  const botPipeline = createBotPipeline({ db, bots, indexer, finalize: finalizeJob, log });
  // A bot's documents move on by themselves: read -> finalized -> embedded into the bot's collection.
  jobWatch.watchAll((jobId) => botPipeline.jobChanged(jobId));
  const finalize: typeof finalizeJob = async (jobId, policy, reviewer) => {
    const done = await finalizeJob(jobId, policy, reviewer);
    botPipeline.jobChanged(jobId);
    return done;
  };
  const server = await buildServer(
    {
      settings,
      apiKey,
      appVersion,
      db,
      files,
      jobs: jobsService,
      jobWatch,
      blocks: createBlocksReview({ db, clock }),
      blocksBulk: createBlocksBulk({ db, clock }),
      chunks: createChunksReview({ db, clock }),
      rechunk,
      finalize,
      bots,
      botDocuments: createBotDocuments({ db, files, jobs: jobsService, bots, net, clock, settings }),
      botPipeline,
      botChat: createBotChat({ db, bots, search, models, llm, net, clock, defaultModel: settings.chat_model, webSearchUrl: settings.web_search_url }),
      exportJob: createExporter({ db, files, clock, appVersion }),
      models,
      pages: createPageList({ db }),
      pageImages: createPageImages({ db, pool, files }),
      reocr: createReocr({ db, pool, files, clock }),
      indexer,
      search,
      chat: createChat({ db, search, models, llm, clock, defaultModel: settings.chat_model, net }),
      llm,
      net,
      pool,
    },
    log,
  );
  runner.resumeUnfinished();
  botPipeline.resume();
  let closed = false;
  return {
    server,
    apiKey,
    settings,
    log,
    /** Stops taking requests, stops workers (unfinished jobs resume at the next start), closes the database. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await server.close();
      await runner.close();
      await indexer.close();
      await llm.close();
      await pool.close();
      database.close();
    },
  };
}
export type LecternApp = Awaited<ReturnType<typeof createApp>>;

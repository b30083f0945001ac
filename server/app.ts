import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pino, type Logger } from 'pino';
import { buildServer } from './api/build-server.js';
import { systemClock, type Clock } from './core/clock.js';
import { createExporter } from './core/export/export-job.js';
import { createJobsService } from './core/jobs/jobs-service.js';
import { createSettingsPool } from './settings-pool.js';
import { languagesDirOf } from './core/ocr/ocr-languages.js';
import { createBlocksBulk } from './core/review/blocks-bulk.js';
import { createBlockStructure } from './core/review/block-structure.js';
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
import { openStore, type OpenedStore } from './store/open-store.js';
import { markTeamFolder, refuseTeamFolderWithoutDatabase } from './store/team-folder.js';
import { createConversations } from './core/conversations/conversations.js';
import { acquireDataLock, type DataLock, type LockOwnerKind } from './store/data-lock.js';
import { composeJobs } from './compose-jobs.js';
import { createFileStore } from './store/file-store.js';
import type { ObjectStore } from './store/objects/object-store.js';
import { openCheckedObjectStore } from './store/objects/open.js';
import type { CatalogModel } from './models/catalog.js';
import { createModelManager } from './models/manager.js';
import { createModelPulls } from './models/model-pulls.js';
import { modelsDirOf } from './store/app-paths.js';
import { createIndexer } from './core/indexing/indexer.js';
import { createReindexer } from './core/indexing/reindexer.js';
import { createSearch } from './core/search/search.js';
import { availableParallelism, loadavg } from 'node:os';
import { llmThreads } from './models/llm/llm-threads.js';
import { createChat } from './core/chat/chat-service.js';
import type { ProviderKeys } from './core/chat/chat-providers.js';
import { createPurge } from './core/purge/purge.js';
import { createLlmRuntime } from './models/llm/llm-runtime.js';
import { netPolicyOf } from './config/net-policy.js';
import { createGuardedFetch } from './core/net/guarded-fetch.js';
import { createBotsService } from './core/bots/bots-service.js';
import { createBotDocuments } from './core/bots/bot-documents.js';
import { createBotPipeline } from './core/bots/bot-pipeline.js';
import { createBotChat } from './core/bots/bot-chat.js';
import { createChatTraining } from './core/bots/chat-training.js';
import { createKeysService } from './core/keys/keys-service.js';
import { createChatCipher, loadChatKey } from './core/chat/chat-cipher.js';
import { createKeyAuth } from './core/keys/key-auth.js';

export interface AppOptions {
  settings: Settings;
  /** SERVICE_API_KEY, read by the entry point (never deep inside modules). */
  serviceApiKey?: string;
  /** LECTERN_CHAT_KEY, likewise: the key that seals chats (encrypt_chats); else the chat_key_file. */
  chatKey?: string;
  /** LongParser's provider key variables (GROQ_API_KEY…) and moved addresses (GROQ_BASE_URL…), likewise: `providerKeysFrom(process.env)`. */
  providerKeys?: ProviderKeys;
  /** The built worker module (dist/worker.js, or out/main/worker.js under Electron). */
  workerFile: string;
  logger?: Logger;
  clock?: Clock;
  /** The built llama host (dist/llm-host.js); by default next to `workerFile`. */
  llmHostFile?: string;
  /** The one origin given CORS: the desktop window's (default `lectern://app`, server/api/plugins/cors.ts). */
  desktopOrigin?: string;
  /** Who holds the data folder's lock while the app runs (default: a server). */
  owner?: { kind: LockOwnerKind; command?: string };
  /** The models this server lists and pulls (default: the built-in catalog, MODEL_CATALOG). */
  catalog?: readonly CatalogModel[];
}

/**
 * Composes the whole headless application: database, files, worker pool, services and the HTTP server.
 * `lectern serve`, Electron's main process and the tests all start Lectern through here. Jobs left
 * unfinished by a previous run are resumed.
 */
export async function createApp(options: AppOptions) {
  // One process per data folder (server/store/data-lock.ts): taken before the database opens, let go on close.
  // A team server's nodes share the folder (its files/), so with a database nobody holds it alone.
  mkdirSync(options.settings.data_dir, { recursive: true });
  refuseTeamFolderWithoutDatabase(options.settings);
  const owner = options.owner ?? { kind: 'server' as const };
  const lock: Pick<DataLock, 'publish' | 'release'> = options.settings.database_url
    ? { publish: () => undefined, release: () => undefined }
    : acquireDataLock(options.settings.data_dir, owner);
  let opened: OpenedStore | undefined;
  let objects: ObjectStore | undefined;
  try {
    // The object store before the database: a bucket that cannot be used refuses the start, in one line,
    // before any migration runs.
    objects = await openCheckedObjectStore(options.settings);
    opened = await openStore(options.settings, findAppRoot());
    if (options.settings.database_url) markTeamFolder(options.settings.data_dir, options.settings.database_url);
    const app = await composeApp(options, opened, objects);
    return {
      ...app,
      /** Writes where the app listens into the folder's lock, so `lectern` commands talk to it. */
      published(url: string): void {
        const keySource = app.apiKey.file ? 'file' : owner.kind === 'desktop' ? 'session' : 'env';
        lock.publish({
          url: loopbackUrl(url),
          key_source: keySource,
          ...(app.apiKey.file ? { key_file: app.apiKey.file } : {}),
        });
      },
      async close(): Promise<void> {
        try {
          await app.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (err) {
    objects?.close();
    await opened?.close().catch(() => undefined);
    lock.release();
    throw err;
  }
}

/** An address a client on this machine can use: a wildcard host becomes the loopback one. */
function loopbackUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

async function composeApp(
  {
    settings,
    serviceApiKey,
    chatKey,
    providerKeys = {},
    workerFile,
    logger,
    clock = systemClock,
    llmHostFile,
    desktopOrigin,
    catalog,
  }: AppOptions,
  opened: OpenedStore,
  objects: ObjectStore,
) {
  const log = logger ?? pino({ level: settings.log_level });
  const root = findAppRoot();
  const appVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const { store } = opened;
  log.info({ store: store.kind, at: opened.location, objects: objects.location }, 'store opened');
  const files = createFileStore(settings.data_dir, { objects });
  const apiKey = resolveApiKey(settings.data_dir, serviceApiKey);
  const chatCipher = createChatCipher(
    loadChatKey({
      encrypt: settings.encrypt_chats,
      keyFile: settings.chat_key_file || join(settings.data_dir, 'chat.key'),
      envKey: chatKey,
    }),
    settings.encrypt_chats,
  );
  const pool = createSettingsPool(workerFile, settings, log);
  // The one way out of the process: remote providers, model downloads and (bots) link and search readers.
  const net = createGuardedFetch(netPolicyOf(settings));
  const models = createModelManager({
    modelsDir: modelsDirOf(settings.data_dir),
    net,
    catalog,
    mirrorUrl: settings.model_mirror_url || undefined,
    // Built beside the worker bundle, like the llama host: it loads an imported GGUF once in a process of its own.
    ggufProbeFile: join(dirname(workerFile), 'gguf-probe.js'),
    // And the ONNX probe: an imported embedding model embeds a test sentence there before it is listed.
    onnxProbeFile: join(dirname(workerFile), 'onnx-probe.js'),
  });
  const modelPulls = createModelPulls({ models });
  const embedding = { store, pool, models, defaultModel: settings.embedding_model, net };
  const jobs = await composeJobs({ opened, settings, pool, files, clock, log, models, net });
  const { watch: jobWatch, runner } = jobs;
  if (jobs.workerId)
    log.info(
      { worker_id: jobs.workerId, reads_documents: jobs.slots, embeds: jobs.embedSlots },
      'joined the team queue',
    );
  const indexer = createIndexer({ ...embedding, clock, log, runner, watch: jobWatch });
  await indexer.start();
  const reindexer = createReindexer({ ...embedding, clock, log, runner: jobs.reindexes, work: jobs.reindexWork });
  const rechunk = createRechunk({ store, pool, clock });
  // Nothing is loaded here: the llama host process starts on the first chat that needs it.
  const threads = llmThreads(settings.llm_threads, availableParallelism());
  const llm = createLlmRuntime({
    hostFile: llmHostFile ?? join(dirname(workerFile), 'llm-host.js'),
    threads: threads.threads,
    prefillThreads: () => threads.prefillThreads({ poolTasks: pool.running(), loadAverage: loadavg()[0] ?? 0 }),
    log,
  });
  const search = createSearch(embedding);
  const providers = {
    models,
    llm,
    net,
    providerKeys,
    defaultModel: settings.chat_model,
    localSourceText: settings.llm_source_text,
  };
  const jobsService = createJobsService({ store, files, runner, clock, vectors: indexer, watch: jobWatch });
  const bots = createBotsService({
    store,
    clock,
    defaultEmbeddingModel: settings.embedding_model,
    defaultLlm: {
      provider: settings.llm_provider,
      model: settings.llm_model || undefined,
      base_url: settings.llm_base_url || undefined,
    },
  });
  const finalizeJob = createFinalize({ store, clock, rechunk });
  const botDocuments = createBotDocuments({ store, files, jobs: jobsService, bots, net, clock, pool, settings });
  const chatTraining = createChatTraining({
    store,
    bots,
    documents: botDocuments,
    clock,
    dataDir: settings.data_dir,
    cipher: chatCipher,
  });
  const botPipeline = createBotPipeline({
    store,
    bots,
    indexer,
    finalize: finalizeJob,
    log,
    learned: chatTraining.learned,
  });
  // A bot's documents move on by themselves: read -> finalized -> embedded into the bot's collection.
  jobWatch.watchAll((jobId) => botPipeline.jobChanged(jobId));
  // A team server's database came back after notices were lost (a restart): every bot document is looked
  // at again, as at start, so one read elsewhere meanwhile still reaches its bot's index.
  jobWatch.watchMissed(
    () =>
      void botPipeline
        .resume()
        .catch((err: unknown) => log.warn({ err }, "could not look at the bots' documents again")),
  );
  const finalize: typeof finalizeJob = async (jobId, policy, reviewer) => {
    const done = await finalizeJob(jobId, policy, reviewer);
    // A bot document moves on to its index (a chat-training job's pairs count as learned once it is there).
    botPipeline.jobChanged(jobId);
    return done;
  };
  const server = await buildServer(
    {
      settings,
      desktopOrigin,
      apiKey,
      keyAuth: createKeyAuth({
        store,
        clock,
        serviceKey: apiKey,
        failuresPerMinute: settings.auth_failures_per_minute,
      }),
      keys: createKeysService({ store, clock }),
      store,
      conversations: createConversations({ store, cipher: chatCipher, clock }),
      appVersion,
      files,
      jobs: jobsService,
      jobWatch,
      blocks: createBlocksReview({ store, clock }),
      blocksBulk: createBlocksBulk({ store, clock }),
      blockStructure: createBlockStructure({ store, clock }),
      chunks: createChunksReview({ store, clock }),
      rechunk,
      finalize,
      bots,
      botDocuments,
      chatTraining,
      botPipeline,
      botChat: createBotChat({
        ...providers,
        store,
        pool,
        tmpDir: files.tmpDir,
        bots,
        search,
        clock,
        webSearchUrl: settings.web_search_url,
        cipher: chatCipher,
      }),
      exportJob: createExporter({ store, files, clock, appVersion, log }),
      models,
      modelPulls,
      pages: createPageList({ store }),
      pageImages: createPageImages({ store, pool, files, log }),
      reocr: createReocr({ store, pool, files, clock, languagesDir: languagesDirOf(settings.data_dir) }),
      indexer,
      reindexer,
      search,
      chat: createChat({ ...providers, store, search, clock, cipher: chatCipher }),
      purge: createPurge({ store, clock, cipher: chatCipher }),
      llm,
      net,
      pool,
    },
    log,
  );
  await runner.resumeUnfinished();
  await jobs.reindexes.start();
  await botPipeline.resume();
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
      await jobs.close();
      await indexer.close();
      await llm.close();
      await pool.close();
      await files.close();
      await opened.close();
    },
  };
}
export type LecternApp = Awaited<ReturnType<typeof createApp>>;

import type { Settings } from '../schemas/settings.js';
import type { ExportJob } from '../core/export/export-job.js';
import type { JobsService } from '../core/jobs/jobs-service.js';
import type { JobWatch } from '../core/jobs/job-watch.js';
import type { FileStore } from '../store/file-store.js';
import type { ApiKey } from '../store/api-key.js';
import type { BotsService } from '../core/bots/bots-service.js';
import type { BotDocuments } from '../core/bots/bot-documents.js';
import type { BotPipeline } from '../core/bots/bot-pipeline.js';
import type { BotChat } from '../core/bots/bot-chat.js';
import type { ChatTraining } from '../core/bots/chat-training.js';
import type { BlocksBulk } from '../core/review/blocks-bulk.js';
import type { BlockStructure } from '../core/review/block-structure.js';
import type { BlocksReview } from '../core/review/blocks-review.js';
import type { ChunksReview } from '../core/review/chunks-review.js';
import type { Rechunk } from '../core/review/rechunk.js';
import type { createFinalize } from '../core/review/finalize.js';
import type { ModelManager } from '../models/manager.js';
import type { ModelPulls } from '../models/model-pulls.js';
import type { PageImages } from '../core/pages/page-images.js';
import type { PageList } from '../core/pages/page-list.js';
import type { Reocr } from '../core/pages/reocr-page.js';
import type { Indexer } from '../core/indexing/indexer.js';
import type { Reindexer } from '../core/indexing/reindexer.js';
import type { Search } from '../core/search/search.js';
import type { TaskPool } from '../core/pool.js';
import type { Chat } from '../core/chat/chat-service.js';
import type { Purge } from '../core/purge/purge.js';
import type { LlmRuntime } from '../models/llm/llm-runtime.js';
import type { GuardedFetch } from '../core/net/types.js';
import type { KeyAuth } from '../core/keys/key-auth.js';
import type { KeysService } from '../core/keys/keys-service.js';
import type { Conversations } from '../core/conversations/conversations.js';
import type { Store } from '../store/store.js';

/** Everything the HTTP layer needs, built by server/app.ts; routes never construct services. */
export interface ServerDeps {
  settings: Settings;
  /** The origin given CORS (the desktop window's); default DESKTOP_ORIGIN. */
  desktopOrigin?: string;
  apiKey: ApiKey;
  /** Who sends each request (service key or a named key), its role and scope; failed checks rate-limited. */
  keyAuth: KeyAuth;
  /** Named keys, managed by admins over HTTP (GET/POST /keys, DELETE /keys/{name}). */
  keys: KeysService;
  appVersion: string;
  /** The repositories (store/store.ts); routes read through services, or here for small reads (counts). */
  store: Store;
  /** Past conversations of jobs and bots, one model for both (GET/PATCH/DELETE /conversations). */
  conversations: Conversations;
  files: FileStore;
  jobs: JobsService;
  /** Changes of a job as they happen, for GET /jobs/{id}/events. */
  jobWatch: Pick<JobWatch, 'watch'>;
  blocks: BlocksReview;
  blocksBulk: BlocksBulk;
  /** Split, merge and move blocks (undone through blocksBulk.undo). */
  blockStructure: BlockStructure;
  bots: BotsService;
  botDocuments: BotDocuments;
  botPipeline: Pick<BotPipeline, 'build'>;
  botChat: BotChat;
  chatTraining: ChatTraining;
  chunks: ChunksReview;
  rechunk: Rechunk;
  finalize: ReturnType<typeof createFinalize>;
  exportJob: ExportJob;
  models: ModelManager;
  /** Downloads running in this server, one per model, followed by every caller of POST /models/{id}/pull. */
  modelPulls: ModelPulls;
  pages: PageList;
  pageImages: PageImages;
  reocr: Reocr;
  indexer: Indexer;
  /** Re-embedding a collection with another model (POST/GET/DELETE /collections/{name}/reindex). */
  reindexer: Reindexer;
  search: Search;
  chat: Chat;
  purge: Purge;
  /** For the health report: whether the llama host runs (it starts with the first local chat). */
  llm: Pick<LlmRuntime, 'started' | 'threads'>;
  /** For the health report (threads and how many have warmed up); tasks go through the services. */
  pool: Pick<TaskPool, 'threads' | 'warmThreads'>;
  /** The guarded fetch (settings allowed_private_hosts, outbound_*): every outbound request goes through it. */
  net: GuardedFetch;
}

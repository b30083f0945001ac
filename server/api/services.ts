import type { Settings } from '../schemas/settings.js';
import type { ExportJob } from '../core/export/export-job.js';
import type { JobsService } from '../core/jobs/jobs-service.js';
import type { Db } from '../store/db.js';
import type { FileStore } from '../store/file-store.js';
import type { ApiKey } from '../store/api-key.js';
import type { BlocksReview } from '../core/review/blocks-review.js';
import type { ChunksReview } from '../core/review/chunks-review.js';
import type { Rechunk } from '../core/review/rechunk.js';
import type { createFinalize } from '../core/review/finalize.js';
import type { ModelManager } from '../models/manager.js';

/** Everything the HTTP layer needs, built by server/app.ts; routes never construct services. */
export interface ServerDeps {
  settings: Settings;
  apiKey: ApiKey;
  appVersion: string;
  db: Db;
  files: FileStore;
  jobs: JobsService;
  blocks: BlocksReview;
  chunks: ChunksReview;
  rechunk: Rechunk;
  finalize: ReturnType<typeof createFinalize>;
  exportJob: ExportJob;
  models: ModelManager;
}

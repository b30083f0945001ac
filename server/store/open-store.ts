/**
 * The store the settings name: the data folder's SQLite (with a USearch file per collection) by default, or
 * the team server's PostgreSQL when database_url is set. The app, `lectern keys` and `lectern migrate` open
 * their store here, so a setting means the same to each of them.
 */
import { join } from 'node:path';
import type { Settings } from '../schemas/settings.js';
import { openDatabase } from './db.js';
import { openPostgres, redactUrl } from './postgres/connection.js';
import { createPostgresStore } from './postgres/postgres-store.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';
import type { TaskQueue } from './repos/task-queue.js';
import { createPgContext } from './postgres/context.js';
import { openJobNotices, type JobNotices } from './postgres/job-notices.js';
import { createPgTaskQueue } from './postgres/task-queue.js';

/** What a team server's nodes share besides the repositories: the task queue and job change notices. */
export interface TeamParts {
  /** Its calls made inside a store transaction are part of that transaction. */
  tasks: TaskQueue;
  /** Starts hearing other nodes' job changes (`heard`) and sending this node's; `missed` once notices may have been lost. */
  jobNotices(heard: (jobId: string) => void, missed?: () => void): Promise<JobNotices>;
}

export interface OpenedStore {
  store: Store;
  /** Where the data lives, for logs and start-up lines (a database URL without its password). */
  location: string;
  /** PostgreSQL only: several nodes share this store. */
  team?: TeamParts;
  close(): Promise<void>;
}

export async function openStore(
  settings: Pick<Settings, 'data_dir' | 'database_url'> & Partial<Pick<Settings, 'database_timeout_ms'>>,
  appRoot: string,
): Promise<OpenedStore> {
  if (settings.database_url) {
    const timeoutMs = settings.database_timeout_ms;
    const pg = await openPostgres(settings.database_url, join(appRoot, 'drizzle', 'pg'), { timeoutMs });
    // One context for both: a task enqueued inside a store transaction is part of it (an embed's task is
    // committed with the job's move to `embedding`, or not at all).
    const ctx = createPgContext(pg.db);
    const team: TeamParts = {
      // Listening connections probed as often as a statement may take.
      tasks: createPgTaskQueue({ ctx, pool: pg.pool, probeMs: timeoutMs }),
      jobNotices: (heard, missed) => openJobNotices(pg.pool, heard, missed, timeoutMs),
    };
    return {
      store: createPostgresStore(pg, ctx),
      location: redactUrl(settings.database_url),
      team,
      close: () => pg.close(),
    };
  }
  const file = join(settings.data_dir, 'lectern.db');
  const database = openDatabase(file, join(appRoot, 'drizzle'));
  const store = createSqliteStore(database, { indexesDir: join(settings.data_dir, 'indexes') });
  return { store, location: file, close: async () => database.close() };
}

import { mkdirSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { systemClock } from './core/clock.js';
import { createSettingsPool } from './settings-pool.js';
import { netPolicyOf } from './config/net-policy.js';
import { createGuardedFetch } from './core/net/guarded-fetch.js';
import { createModelManager } from './models/manager.js';
import { modelsDirOf } from './store/app-paths.js';
import { composeJobs } from './compose-jobs.js';
import type { Settings } from './schemas/settings.js';
import { findAppRoot } from './store/app-paths.js';
import { createFileStore } from './store/file-store.js';
import { openCheckedObjectStore } from './store/objects/open.js';
import { openStore } from './store/open-store.js';
import { markTeamFolder } from './store/team-folder.js';

export interface WorkerNodeOptions {
  settings: Settings;
  /** The built worker module (dist/worker.js). */
  workerFile: string;
  logger?: Logger;
}

/**
 * A team server's node that only reads documents and embeds jobs (`lectern worker`): the shared store, the
 * team's files (the data folder every node mounts, or the bucket of object_store_url), the data folder's models,
 * a worker pool and the job runner claiming from the shared queue. No HTTP, no folder lock. Closing gives the
 * documents it was reading and the jobs it was embedding back to the queue for another node.
 */
export async function startWorkerNode({ settings, workerFile, logger }: WorkerNodeOptions) {
  if (!settings.database_url) throw new Error('a worker node needs a database (database_url)');
  const log = logger ?? pino({ level: settings.log_level });
  mkdirSync(settings.data_dir, { recursive: true });
  // As `lectern serve`: a bucket that cannot be used refuses the start before the database is opened.
  const objects = await openCheckedObjectStore(settings);
  const opened = await openStore(settings, findAppRoot()).catch((err: unknown) => {
    objects.close();
    throw err;
  });
  markTeamFolder(settings.data_dir, settings.database_url);
  const files = createFileStore(settings.data_dir, { objects });
  try {
    const pool = createSettingsPool(workerFile, settings, log);
    // Embeds use the folder's models (every node mounts it) and reach remote providers as the API nodes do.
    const net = createGuardedFetch(netPolicyOf(settings));
    const models = createModelManager({
      modelsDir: modelsDirOf(settings.data_dir),
      net,
      mirrorUrl: settings.model_mirror_url || undefined,
    });
    const jobs = await composeJobs({
      opened,
      settings: { ...settings, run_tasks: true },
      pool,
      files,
      clock: systemClock,
      log,
      models,
      net,
    });
    await jobs.runner.resumeUnfinished();
    await jobs.reindexes.start();
    log.info(
      { worker_id: jobs.workerId, threads: pool.threads, embeds: jobs.embedSlots, store: opened.location },
      'lectern worker reading',
    );
    let closing: Promise<void> | undefined;
    return {
      workerId: jobs.workerId,
      log,
      close: (): Promise<void> =>
        (closing ??= (async () => {
          await jobs.close();
          await pool.close();
          await files.close();
          await opened.close();
        })()),
    };
  } catch (err) {
    await files.close();
    await opened.close().catch(() => undefined);
    throw err;
  }
}

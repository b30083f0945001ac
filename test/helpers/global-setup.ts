import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTeamServices } from './team-services-script.js';
import { ADMIN_URL_VAR, OBJECT_STORE_VAR, prepareTemplate, testStore } from './test-database.js';

/**
 * Tests drive the built server and workers, so build them once before any test runs.
 *
 * Every temporary folder of the run (data folders, scratch files, browser profiles, child servers') lives
 * under one folder that is removed when the run ends: the test files make hundreds of data folders and
 * leaving them behind filled this machine's disk until CI could not install.
 *
 * With LECTERN_TEST_STORE=postgres, the team services (scripts/team-services.sh) run for the whole run and
 * test servers keep their records in PostgreSQL and their files in the services' S3 bucket (test-database.ts).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { cwd: root, stdio: 'inherit' });
  const runTmp = mkdtempSync(join(tmpdir(), 'lectern-tests-'));
  // The test workers are forked after this and inherit it; os.tmpdir() reads TMPDIR on every call.
  process.env.TMPDIR = runTmp;
  const services = testStore() === 'postgres' ? await startTeamServices() : undefined;
  if (services) {
    process.env[ADMIN_URL_VAR] = services.env.LECTERN_DATABASE_URL;
    await prepareTemplate(services.env.LECTERN_DATABASE_URL, root);
    if (process.env.LECTERN_TEST_OBJECT_STORE !== 'folder') {
      // The workers and the servers they start as processes read the bucket's endpoint and keys from here.
      process.env[OBJECT_STORE_VAR] = services.env.LECTERN_OBJECT_STORE_URL;
      for (const k of ['AWS_ENDPOINT_URL_S3', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const)
        process.env[k] = services.env[k];
    }
  }
  return async () => {
    try {
      await services?.stop();
    } finally {
      rmSync(runTmp, { recursive: true, force: true });
    }
  };
}

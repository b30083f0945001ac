/**
 * A team server's node in this process (the real app and worker pool) on a real PostgreSQL: its limits on
 * one document on the shared queue, and the folder it marks as the team's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixturesDir, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { lecternAsync } from '../helpers/keys-cli.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';

const services = useTeamServices();
/**
 * The server's max_job_seconds. The scanned PDF's OCR takes several times that on a quiet machine; the
 * short document after it well under it even on a loaded one, where the thread that replaces the stopped
 * one loads pdf.js (about a second, more under load) while it reads.
 */
const LIMIT_S = 3;
/** The scanned fixture page six times over: each read by OCR, a second or more a page on one thread. */
function slowPdf(): Buffer {
  const out = join(tempDir('lectern-limits-'), 'scanned.pdf');
  execFileSync('pdfunite', [
    ...Array.from({ length: 6 }, () => join(fixturesDir, 'scanned', 'scan02-booktabs-p2.pdf')),
    out,
  ]);
  return readFileSync(out);
}
let server: TestServer;
let db: pg.Pool;
let databaseUrl = '';

beforeAll(async () => {
  const url = new URL(await freshDatabase(services().env.LECTERN_DATABASE_URL, `team_limits_${process.pid}`));
  databaseUrl = url.href;
  server = await startServer({
    settings: { database_url: url.href, max_job_seconds: LIMIT_S, task_lease_ms: 3000, workers: 1 },
  });
  db = new pg.Pool({ connectionString: url.href, max: 1 });
});
afterAll(async () => {
  await server?.close();
  await db?.end();
});

it('fails a document read past max_job_seconds with JOB_TIMEOUT, its task with it, and reads the next one', async () => {
  const res = await server.upload('scanned.pdf', slowPdf());
  expect(res.status).toBe(201);
  const { job_id: jobId } = (await res.json()) as { job_id: string };
  const job = await server.waitFor(jobId);
  expect(job).toMatchObject({ status: 'failed', error: { code: 'JOB_TIMEOUT' } });
  const { rows } = await db.query(`SELECT state, attempts, error FROM tasks WHERE job_id = $1`, [jobId]);
  expect(rows).toEqual([{ state: 'failed', attempts: 1, error: { code: 'JOB_TIMEOUT', message: job.error.message } }]);

  const next = await server.upload('short.md', new TextEncoder().encode('# Short\n\nRead in time.'));
  expect((await server.waitFor(((await next.json()) as { job_id: string }).job_id)).status).toBe('ready_for_review');
});

it("refuses a command or a server given the team's folder without its database, and serves one given both", async () => {
  const withoutDatabase = await lecternAsync(['keys', 'list', '--json', '--data-dir', server.dataDir]);
  expect(withoutDatabase.status).toBe(2);
  const line = new RegExp(
    `^lectern keys list: the data folder ${server.dataDir} is a team server's, whose library is in the database postgres://[^ ]*/team_limits_\\d+: give its database_url`,
  );
  expect(withoutDatabase.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  const serve = await lecternAsync(['serve', '--data-dir', server.dataDir, '-p', '0']);
  expect(serve.status).toBe(2);
  expect(serve.stderr).toMatch(/^lectern serve: the data folder .* is a team server's/);
  // Nothing of a library of its own was started in the folder.
  expect(existsSync(join(server.dataDir, 'lectern.db'))).toBe(false);

  const made = await server.call('POST', '/keys', { json: { name: 'reviewer-1', role: 'reviewer' } });
  expect(made.status).toBe(201);
  const listed = await lecternAsync(['keys', 'list', '--json', '--data-dir', server.dataDir], {
    env: { LECTERN_DATABASE_URL: databaseUrl },
  });
  expect(listed.status).toBe(0);
  expect(JSON.parse(listed.stdout).keys.map((k: { name: string }) => k.name)).toContain('reviewer-1');
});

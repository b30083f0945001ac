/**
 * A team server's limits on one document, on the shared queue of a real PostgreSQL: a node in this process
 * (the real app and worker pool) whose queue is the database's.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';
import { makeLongPdf } from '../helpers/make-pdf.js';
import { useTeamServices } from '../helpers/team-services.js';

const services = useTeamServices();
let server: TestServer;
let db: pg.Pool;

beforeAll(async () => {
  const admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 1 });
  const name = `team_limits_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(services().env.LECTERN_DATABASE_URL);
  url.pathname = `/${name}`;
  server = await startServer({ settings: { database_url: url.href, max_job_seconds: 1, task_lease_ms: 3000, workers: 1 } });
  db = new pg.Pool({ connectionString: url.href, max: 1 });
});
afterAll(async () => {
  await server?.close();
  await db?.end();
});

it('fails a document read past max_job_seconds with JOB_TIMEOUT, its task with it, and reads the next one', async () => {
  const res = await server.upload('long.pdf', await makeLongPdf(400));
  expect(res.status).toBe(201);
  const { job_id: jobId } = (await res.json()) as { job_id: string };
  const job = await server.waitFor(jobId);
  expect(job).toMatchObject({ status: 'failed', error: { code: 'JOB_TIMEOUT' } });
  const { rows } = await db.query(`SELECT state, attempts, error FROM tasks WHERE job_id = $1`, [jobId]);
  expect(rows).toEqual([{ state: 'failed', attempts: 1, error: { code: 'JOB_TIMEOUT', message: job.error.message } }]);

  const next = await server.upload('short.md', new TextEncoder().encode('# Short\n\nRead in time.'));
  expect((await server.waitFor(((await next.json()) as { job_id: string }).job_id)).status).toBe('ready_for_review');
});

/**
 * A team server with object_store_url: originals, page images and exports in a real S3 bucket (the team
 * services' SeaweedFS gateway), through HTTP. What the bucket holds is read beside the server with the AWS
 * SDK. A store that refuses (a bucket policy that makes it read-only or unreadable, the gateway stopped)
 * answers OBJECT_STORE_FAILED and leaves nothing half-written; one that cannot be used at start is refused
 * in one line.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketPolicyCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutBucketPolicyCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { strFromU8, unzipSync } from 'fflate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, ingest, json, removeDir, repoRoot, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { makePagesPdf, PAPER } from '../helpers/make-pdf.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';

const services = useTeamServices();
let raw: S3Client;
const servers: TestServer[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  const env = services().env;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // The S3 store reads its endpoint and keys from the environment, as `lectern serve` does.
  for (const k of ['AWS_ENDPOINT_URL_S3', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const)
    process.env[k] = env[k];
  raw = new S3Client({
    region: env.AWS_REGION,
    endpoint: env.AWS_ENDPOINT_URL_S3,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
});
afterAll(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  raw?.destroy();
  for (const d of dirs) removeDir(d);
});

/**
 * A database of its own for each part: a team's nodes share one object store, and a node of one part would
 * claim another part's documents from a shared queue and look for them in its own bucket.
 */
let databases = 0;
const newDatabase = (): Promise<string> =>
  freshDatabase(services().env.LECTERN_DATABASE_URL, `team_objects_${process.pid}_${++databases}`);

async function newBucket(name: string): Promise<string> {
  await raw.send(new CreateBucketCommand({ Bucket: name }));
  return name;
}

/** Keys in the bucket under `prefix`, as the bucket names them. */
async function keysIn(bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await raw.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return keys.sort();
}

/** Denies the actions on the bucket's keys under `under` (every key when empty) to everyone, keys of the owner too. */
async function deny(bucket: string, actions: string[], under = ''): Promise<void> {
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'refuse',
        Effect: 'Deny',
        Principal: '*',
        Action: actions,
        Resource: [`arn:aws:s3:::${bucket}/${under}*`],
      },
    ],
  };
  await raw.send(new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify(policy) }));
}
async function allow(bucket: string): Promise<void> {
  await raw.send(new DeleteBucketPolicyCommand({ Bucket: bucket })).catch((err: { name?: string }) => {
    if (err.name !== 'NoSuchBucketPolicy') throw err;
  });
}

async function start(
  databaseUrl: string,
  objectStoreUrl: string,
  settings: Record<string, unknown> = {},
  dataDir = tempDir(),
): Promise<TestServer> {
  dirs.push(dataDir);
  const server = await startServer({
    dataDir,
    settings: { database_url: databaseUrl, object_store_url: objectStoreUrl, workers: 1, ...settings },
  });
  servers.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close();
}

/** Ends each part with its servers closed. */
async function stopAll(): Promise<void> {
  for (const s of [...servers]) await stop(s);
}

/** What the server left in its data folder's tmp/ (uploads received, exports made, copies read). */
function tmpLeft(dataDir: string): string[] {
  const tmp = join(dataDir, 'tmp');
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
    );
  return existsSync(tmp) ? walk(tmp) : [];
}

/** A process that has exited (or is a zombie no one reaped yet) is not alive. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
  } catch {
    return false;
  }
}

const jobCount = async (server: TestServer): Promise<number> =>
  (await json(await server.call('GET', '/jobs?limit=500'))).total;

describe('a server whose files are in S3', () => {
  const bucket = 'team-files';
  const prefix = 'lectern/one';
  let pdf: Buffer;
  let jobId = '';
  let server: TestServer;
  let firstImage: Buffer;
  let db = '';

  beforeAll(async () => {
    await newBucket(bucket);
    db = await newDatabase();
    pdf = await makePagesPdf([
      { size: PAPER.a4, title: 'Kept in a bucket' },
      { size: PAPER.letter, title: 'Second page' },
    ]);
    server = await start(db, `s3://${bucket}/${prefix}`);
  });
  afterAll(stopAll);

  it('keeps the upload as an object, reads it through a copy that goes once read, and nothing in the data folder', async () => {
    const job = await ingest(server, 'bucket.pdf', pdf);
    jobId = job.job_id;
    expect(job.total_pages).toBe(2);
    expect(await keysIn(bucket, `${prefix}/files/${jobId}/`)).toEqual([`${prefix}/files/${jobId}/original.pdf`]);
    const head = await raw.send(
      new HeadObjectCommand({ Bucket: bucket, Key: `${prefix}/files/${jobId}/original.pdf` }),
    );
    expect(head.ContentLength).toBe(pdf.length);
    expect(existsSync(join(server.dataDir, 'files'))).toBe(false);
    expect(tmpLeft(server.dataDir)).toEqual([]);
  });

  it('draws a page image once, keeps it in the bucket and streams it from there after', async () => {
    const first = await server.call('GET', `/jobs/${jobId}/pages/1/image?size=300`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    firstImage = Buffer.from(await first.arrayBuffer());
    const key = `${prefix}/files/${jobId}/page-images/page-1-w300.png`;
    expect(await keysIn(bucket, `${prefix}/files/${jobId}/page-images/`)).toEqual([key]);
    const stored = await raw.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(stored).toMatchObject({ ContentLength: firstImage.length, ContentType: 'image/png' });
    const again = Buffer.from(await (await server.call('GET', `/jobs/${jobId}/pages/1/image?size=300`)).arrayBuffer());
    expect(again.equals(firstImage)).toBe(true);
    // Not drawn again: the object is the one first written.
    expect((await raw.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).LastModified).toEqual(
      stored.LastModified,
    );
  });

  it('exports a zip holding the original from the bucket, and keeps no export once it is sent', async () => {
    expect((await server.call('POST', `/jobs/${jobId}/finalize`, { json: {} })).status).toBe(200);
    const res = await server.call('GET', `/jobs/${jobId}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Buffer.from(zip['original-bucket.pdf']!).equals(pdf)).toBe(true);
    expect(JSON.parse(strFromU8(zip['manifest.json']!)).source.sha256).toBe(
      (await json(await server.call('GET', `/jobs/${jobId}`))).file_hash,
    );
    await expect.poll(() => keysIn(bucket, `${prefix}/exports/`)).toEqual([]);
    // Only the copy of the original the page image was drawn from, kept a while for the next page.
    expect(tmpLeft(server.dataDir)).toEqual([expect.stringMatching(/\/tmp\/copy-[\w-]+\.pdf$/)]);
  });

  it("serves everything after a restart on another, empty data folder: the files are the bucket's", async () => {
    await stop(server);
    server = await start(db, `s3://${bucket}/${prefix}`);
    expect(await json(await server.call('GET', `/jobs/${jobId}`))).toMatchObject({
      status: 'finalized',
      total_pages: 2,
    });
    const image = Buffer.from(await (await server.call('GET', `/jobs/${jobId}/pages/1/image?size=300`)).arrayBuffer());
    expect(image.equals(firstImage)).toBe(true);
    const other = await server.call('GET', `/jobs/${jobId}/pages/2/image?size=200`);
    expect(other.status).toBe(200);
    const zip = unzipSync(new Uint8Array(await (await server.call('GET', `/jobs/${jobId}/export`)).arrayBuffer()));
    expect(Buffer.from(zip['original-bucket.pdf']!).equals(pdf)).toBe(true);
    // The page drawn here came from a copy of the original kept a while for the next page: gone at close.
    await stop(server);
    expect(tmpLeft(server.dataDir)).toEqual([]);
    server = await start(db, `s3://${bucket}/${prefix}`, {}, server.dataDir);
  });

  it('deletes a job with every object under its prefix', async () => {
    const res = await server.call('DELETE', `/jobs/${jobId}`);
    expect(res.status).toBe(204);
    expect(await keysIn(bucket, `${prefix}/files/${jobId}/`)).toEqual([]);
    expect(await keysIn(bucket, `${prefix}/exports/${jobId}/`)).toEqual([]);
    expect((await server.call('GET', `/jobs/${jobId}`)).status).toBe(404);
    // The start-up checks left nothing either: the prefix is empty.
    expect(await keysIn(bucket, `${prefix}/`)).toEqual([]);
  });
});

describe('a bucket that refuses writes mid-work (made read-only)', () => {
  const bucket = 'team-read-only';
  let server: TestServer;
  let kept: Record<string, any>;

  beforeAll(async () => {
    await newBucket(bucket);
    server = await start(await newDatabase(), `s3://${bucket}/p`);
    kept = await ingest(server, 'kept.md', enc('# Kept\n\nWritten before the bucket was closed.'));
    expect((await server.call('POST', `/jobs/${kept.job_id}/finalize`, { json: {} })).status).toBe(200);
    await deny(bucket, ['s3:PutObject', 's3:DeleteObject']);
  });
  afterAll(async () => {
    await allow(bucket);
    await stopAll();
  });

  it('answers an upload 502 OBJECT_STORE_FAILED (access denied), makes no job and leaves no object, upload or temporary file', async () => {
    const before = await keysIn(bucket, '');
    const jobs = await jobCount(server);
    const big = Buffer.alloc(20 * 1024 * 1024, 'a');
    for (const [name, body] of [
      ['refused.md', enc('# Refused\n\nNever kept.')],
      ['refused-big.txt', big],
    ] as const) {
      const res = await server.upload(name, body);
      expect(res.status, name).toBe(502);
      const { error } = await json(res);
      expect(error).toMatchObject({
        code: 'OBJECT_STORE_FAILED',
        details: { op: 'put', reason: 'access_denied', s3_code: 'AccessDenied' },
      });
      expect(error.message).toMatch(
        new RegExp(
          `^object store s3://${bucket}/p: could not put files/[\\w-]+/original\\.(md|txt): access denied to the bucket ${bucket}`,
        ),
      );
    }
    expect(await jobCount(server)).toBe(jobs);
    expect(await keysIn(bucket, '')).toEqual(before);
    // The 20 MiB upload went in parts: none is left pending.
    expect((await raw.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).toEqual([]);
    expect(tmpLeft(server.dataDir)).toEqual([]);
  });

  it('answers an export 502 OBJECT_STORE_FAILED and keeps no part of it', async () => {
    const res = await server.call('GET', `/jobs/${kept.job_id}/export`);
    expect(res.status).toBe(502);
    expect((await json(res)).error).toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { op: 'put', reason: 'access_denied' },
    });
    expect(await keysIn(bucket, 'p/exports/')).toEqual([]);
    expect(tmpLeft(server.dataDir)).toEqual([]);
  });

  it('takes uploads and exports again once the bucket takes writes', async () => {
    await allow(bucket);
    expect((await server.call('GET', `/jobs/${kept.job_id}/export`)).status).toBe(200);
    await ingest(server, 'later.md', enc('# Later\n\nKept once the bucket was open again.'));
    expect((await server.call('DELETE', `/jobs/${kept.job_id}`)).status).toBe(204);
    await expect.poll(() => keysIn(bucket, 'p/exports/')).toEqual([]);
  });
});

describe('an original the store will not give back', () => {
  it('fails the job that reads it with OBJECT_STORE_FAILED', async () => {
    const bucket = await newBucket('team-unreadable');
    // An API node queues; a node that reads documents is started once the originals cannot be read (its own
    // start-up check, at the bucket's top, still can).
    const db = await newDatabase();
    const api = await start(db, `s3://${bucket}`, { run_tasks: false });
    const res = await api.upload('unreadable.md', enc('# Unreadable\n\nKept, never read back.'));
    expect(res.status).toBe(201);
    const { job_id: jobId } = await json(res);
    await deny(bucket, ['s3:GetObject'], 'files/');
    try {
      const reader = await start(db, `s3://${bucket}`);
      const job = await reader.waitFor(jobId);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'OBJECT_STORE_FAILED' } });
      expect(job.error.message).toMatch(
        new RegExp(`^object store s3://${bucket}/: could not download files/${jobId}/original\\.md: access denied`),
      );
      expect(tmpLeft(reader.dataDir)).toEqual([]);
    } finally {
      await allow(bucket);
    }
    // The job is whole: its original is there, and it can be deleted with it.
    expect(await keysIn(bucket, `files/${jobId}/`)).toEqual([`files/${jobId}/original.md`]);
    expect((await api.call('DELETE', `/jobs/${jobId}`)).status).toBe(204);
    expect(await keysIn(bucket, `files/${jobId}/`)).toEqual([]);
    await stopAll();
  });
});

describe('the S3 server stopped mid-work', () => {
  it('answers uploads and deletes 502 OBJECT_STORE_FAILED (unreachable), makes no job and deletes none, and takes them again once it is back', async () => {
    const bucket = await newBucket('team-stopped');
    const server = await start(await newDatabase(), `s3://${bucket}/p`);
    const before = await ingest(server, 'before.md', enc('# Before\n\nRead while the server ran.'));
    const jobs = await jobCount(server);
    const pid = Number(readFileSync(join(services().dir, 'seaweedfs.pid'), 'utf8'));
    process.kill(pid, 'SIGTERM');
    await expect.poll(() => alive(pid), { timeout: 30_000 }).toBe(false);
    try {
      const res = await server.upload('while-stopped.md', enc('# Stopped\n\nNever kept.'));
      expect(res.status).toBe(502);
      const { error } = await json(res);
      expect(error).toMatchObject({ code: 'OBJECT_STORE_FAILED', details: { op: 'put', reason: 'unreachable' } });
      expect(error.message).toContain(`cannot reach ${services().env.AWS_ENDPOINT_URL_S3}`);
      expect(await jobCount(server)).toBe(jobs);
      expect(tmpLeft(server.dataDir)).toEqual([]);
      // A job whose files cannot be removed stays whole, to be deleted later.
      const refused = await server.call('DELETE', `/jobs/${before.job_id}`);
      expect(refused.status).toBe(502);
      expect((await json(refused)).error).toMatchObject({
        code: 'OBJECT_STORE_FAILED',
        details: { reason: 'unreachable' },
      });
      expect(await json(await server.call('GET', `/jobs/${before.job_id}`))).toMatchObject({
        status: 'ready_for_review',
      });
    } finally {
      await services().start();
    }
    expect(await keysIn(bucket, `p/files/${before.job_id}/`)).toEqual([`p/files/${before.job_id}/original.md`]);
    await ingest(server, 'after.md', enc('# After\n\nRead once the server was back.'));
    expect(await keysIn(bucket, 'p/files/')).toHaveLength(2);
    expect((await server.call('DELETE', `/jobs/${before.job_id}`)).status).toBe(204);
    expect(await keysIn(bucket, 'p/files/')).toHaveLength(1);
    await stopAll();
  });
});

describe('an object store that cannot be used at start', () => {
  let untouched = '';
  beforeAll(async () => {
    // A database no server has opened: a refused start must not migrate it.
    untouched = await newDatabase();
  });

  /** `lectern serve` or `lectern worker` on a database, with the environment's S3 settings changed. */
  const run = (
    command: 'serve' | 'worker',
    objectStoreUrl: string,
    env: Record<string, string> = {},
  ): Promise<{ status: number | null; lines: string[] }> =>
    new Promise((resolve) => {
      const args = [
        join(repoRoot, 'bin', 'lectern.js'),
        command,
        '--data-dir',
        mkdtempSync(join(tmpdir(), 'lectern-refused-')),
        '--database-url',
        untouched,
        '--object-store-url',
        objectStoreUrl,
      ];
      const child = spawn(process.execPath, command === 'serve' ? [...args, '-p', '0'] : args, {
        env: { ...process.env, ...services().env, LECTERN_WARM_UP_ROUNDS: '0', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('exit', (status) => {
        clearTimeout(timer);
        resolve({ status, lines: stderr.trim().split('\n') });
      });
    });

  it('refuses an unreachable store and a missing bucket in one line naming it and what to do, before the database is touched', async () => {
    const unreachable = await run('serve', 's3://lectern/team', { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1' });
    expect(unreachable.status).toBe(2);
    expect(unreachable.lines).toEqual([
      expect.stringMatching(
        /^lectern serve: object store s3:\/\/lectern\/team: cannot reach http:\/\/127\.0\.0\.1:1: connect ECONNREFUSED 127\.0\.0\.1:1 \(hint: start the S3 server or correct AWS_ENDPOINT_URL_S3, or give another object_store_url/,
      ),
    ]);
    const missing = await run('serve', 's3://no-such-bucket/team');
    expect(missing.status).toBe(2);
    expect(missing.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^lectern serve: object store s3://no-such-bucket/team: the bucket no-such-bucket does not exist at ${services().env.AWS_ENDPOINT_URL_S3} \\(hint: create the bucket, or give another object_store_url`,
        ),
      ),
    ]);
    const worker = await run('worker', 's3://no-such-bucket/team');
    expect(worker.status).toBe(2);
    expect(worker.lines).toEqual([
      expect.stringMatching(
        /^lectern worker: object store s3:\/\/no-such-bucket\/team: the bucket no-such-bucket does not exist at /,
      ),
    ]);
    const denied = await run('serve', 's3://lectern/team', { AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    expect(denied.status).toBe(2);
    expect(denied.lines).toEqual([
      expect.stringMatching(
        /^lectern serve: object store s3:\/\/lectern\/team: access denied to the bucket lectern \(SignatureDoesNotMatch\)/,
      ),
    ]);
    const db = new pg.Client({ connectionString: untouched });
    await db.connect();
    try {
      expect((await db.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'drizzle'`)).rows).toEqual([
        { n: 0 },
      ]);
    } finally {
      await db.end();
    }
  });
});

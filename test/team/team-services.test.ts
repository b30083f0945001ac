import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTeamEnv, runTeamScript, useTeamServices, type TeamEnv } from '../helpers/team-services.js';

/**
 * scripts/team-services.sh on one machine: a real PostgreSQL with pgvector and a real S3 gateway, reached
 * the way the team server will reach them, with nothing but the variables the script prints.
 */
const services = useTeamServices();

async function withDb<T>(env: TeamEnv, use: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: env.LECTERN_DATABASE_URL });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

// The endpoint, keys and region are passed as read from the script's output, not through process.env,
// which other test files in the same worker share.
const s3Of = (env: TeamEnv): S3Client =>
  new S3Client({
    endpoint: env.AWS_ENDPOINT_URL_S3,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });

const bucketOf = (env: TeamEnv): string => new URL(env.LECTERN_OBJECT_STORE_URL).host;

describe('scripts/team-services.sh', () => {
  it('prints the team server environment, the same in DIR/env.sh and again when already running', async () => {
    const { dir, env } = services();
    expect(env.LECTERN_DATABASE_URL).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/lectern$/);
    expect(env.LECTERN_OBJECT_STORE_URL).toBe('s3://lectern/');
    expect(env.AWS_ENDPOINT_URL_S3).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.AWS_REGION).toBe('us-east-1');
    expect(parseTeamEnv(readFileSync(join(dir, 'env.sh'), 'utf8'))).toEqual(env);

    const again = await runTeamScript('start', dir);
    expect(again.code).toBe(0);
    expect(parseTeamEnv(again.stdout)).toEqual(env);
    const status = await runTeamScript('status', dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`postgres: running on 127.0.0.1:${new URL(env.LECTERN_DATABASE_URL).port}`);
    expect(status.stdout).toContain(`s3: running on 127.0.0.1:${new URL(env.AWS_ENDPOINT_URL_S3).port}`);
  });

  it('serves pgvector: an HNSW cosine index answers nearest-neighbour queries', async () => {
    await withDb(services().env, async (db) => {
      await db.query('CREATE EXTENSION IF NOT EXISTS vector');
      const { rows: ext } = await db.query<{ extversion: string }>(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
      );
      expect(ext[0]?.extversion).toBe('0.8.2');
      await db.query('CREATE TABLE items (id int PRIMARY KEY, embedding vector(3))');
      await db.query('CREATE INDEX items_embedding ON items USING hnsw (embedding vector_cosine_ops)');
      await db.query(
        `INSERT INTO items VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0,0,1]'), (4, '[1,1,0]'), (5, '[0.9,0.1,0]')`,
      );
      // A table this small would be scanned; turning scans off makes the planner go through the index.
      await db.query('SET enable_seqscan = off');
      const query = 'SELECT id, embedding <=> $1 AS distance FROM items ORDER BY embedding <=> $1 LIMIT 3';
      const { rows: plan } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`, ['[1,0.05,0]']);
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('Index Scan using items_embedding');
      const { rows } = await db.query<{ id: number; distance: number }>(query, ['[1,0.05,0]']);
      expect(rows.map((r) => r.id)).toEqual([1, 5, 4]);
      expect(rows[0]!.distance).toBeCloseTo(1 - 1 / Math.sqrt(1 + 0.05 ** 2), 6);
    });
  });

  it('serves S3: put, get, list and delete an object in the bucket', async () => {
    const env = services().env;
    const s3 = s3Of(env);
    const Bucket = bucketOf(env);
    try {
      const body = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251));
      await s3.send(
        new PutObjectCommand({ Bucket, Key: 'docs/a.bin', Body: body, ContentType: 'application/octet-stream' }),
      );
      await s3.send(new PutObjectCommand({ Bucket, Key: 'docs/b.txt', Body: 'second' }));
      const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'docs/a.bin' }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
      expect(got.ContentType).toBe('application/octet-stream');

      const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'docs/' }));
      expect(listed.Contents?.map((o) => [o.Key, o.Size])).toEqual([
        ['docs/a.bin', body.length],
        ['docs/b.txt', 6],
      ]);

      await s3.send(new DeleteObjectCommand({ Bucket, Key: 'docs/a.bin' }));
      const after = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: 'docs/' }));
      expect(after.Contents?.map((o) => o.Key)).toEqual(['docs/b.txt']);
      await expect(s3.send(new GetObjectCommand({ Bucket, Key: 'docs/a.bin' }))).rejects.toMatchObject({
        name: 'NoSuchKey',
      });
    } finally {
      s3.destroy();
    }
  });

  it('refuses S3 requests signed with a wrong secret', async () => {
    const env = services().env;
    const s3 = s3Of({ ...env, AWS_SECRET_ACCESS_KEY: `${env.AWS_SECRET_ACCESS_KEY}x` });
    try {
      await expect(s3.send(new ListObjectsV2Command({ Bucket: bucketOf(env) }))).rejects.toMatchObject({
        name: 'SignatureDoesNotMatch',
      });
    } finally {
      s3.destroy();
    }
  });

  it('stops PostgreSQL alone (stop DIR postgres) and starts it again on its data and port, the S3 gateway running on', async () => {
    const svc = services();
    const before = svc.env;
    await withDb(before, async (db) => {
      await db.query('CREATE TABLE restarted (id int PRIMARY KEY)');
      await db.query('INSERT INTO restarted VALUES (1)');
    });
    const stopped = await runTeamScript('stop', svc.dir, 'postgres');
    expect(stopped.code).toBe(0);
    const status = await runTeamScript('status', svc.dir);
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(/^postgres: stopped\ns3: running on 127\.0\.0\.1:\d+ \(pid \d+\)\n$/);
    await expect(withDb(before, async () => undefined)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const s3 = s3Of(before);
    try {
      await s3.send(
        new PutObjectCommand({ Bucket: bucketOf(before), Key: 'during.txt', Body: 'S3 without PostgreSQL' }),
      );
    } finally {
      s3.destroy();
    }

    // A restart: nodes keep their database_url, so PostgreSQL comes back where it was.
    const after = await svc.start();
    expect(after).toEqual(before);
    expect(await withDb(after, async (db) => (await db.query('SELECT id FROM restarted')).rows)).toEqual([{ id: 1 }]);
    expect((await runTeamScript('status', svc.dir)).code).toBe(0);
    // Only PostgreSQL may be stopped alone.
    expect((await runTeamScript('stop', svc.dir, 's3' as 'postgres')).code).toBe(2);
  });

  it('keeps a row and an object across stop and start', async () => {
    const svc = services();
    const before = svc.env;
    const Bucket = bucketOf(before);
    await withDb(before, async (db) => {
      await db.query('CREATE TABLE kept (id int PRIMARY KEY, embedding vector(3))');
      await db.query(`INSERT INTO kept VALUES (7, '[0.1,0.2,0.3]')`);
    });
    const s3 = s3Of(before);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'kept.txt', Body: 'still here' }));
    s3.destroy();

    await svc.stop();
    const stopped = await runTeamScript('status', svc.dir);
    expect(stopped.code).toBe(3);
    expect(stopped.stdout).toBe('postgres: stopped\ns3: stopped\n');
    await expect(withDb(before, async () => undefined)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    const after = await svc.start();
    // The same keys and places; the ports stay too unless another process took one meanwhile, which this
    // shared machine may do, so they are not compared.
    expect(after.AWS_ACCESS_KEY_ID).toBe(before.AWS_ACCESS_KEY_ID);
    expect(after.AWS_SECRET_ACCESS_KEY).toBe(before.AWS_SECRET_ACCESS_KEY);
    expect(after.LECTERN_OBJECT_STORE_URL).toBe(before.LECTERN_OBJECT_STORE_URL);
    expect(new URL(after.LECTERN_DATABASE_URL).pathname).toBe('/lectern');
    const rows = await withDb(
      after,
      async (db) => (await db.query<{ id: number; e: string }>('SELECT id, embedding::text AS e FROM kept')).rows,
    );
    expect(rows).toEqual([{ id: 7, e: '[0.1,0.2,0.3]' }]);
    const s3Again = s3Of(after);
    try {
      const got = await s3Again.send(new GetObjectCommand({ Bucket, Key: 'kept.txt' }));
      expect(await got.Body!.transformToString()).toBe('still here');
    } finally {
      s3Again.destroy();
    }
  });
});

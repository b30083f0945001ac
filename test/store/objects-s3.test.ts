import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../server/store/objects/object-store.js';
import { checkObjectStore, openObjectStore, type OpenObjectStoreOptions } from '../../server/store/objects/open.js';
import { startTeamServices, useTeamServices, type TeamEnv, type TeamServices } from '../helpers/team-services.js';
import { objectStoreContract } from './objects-contract.js';

// The contract on a real S3 server: SeaweedFS's S3 gateway, started by scripts/team-services.sh. Each case
// gets a prefix of its own in the one bucket; parts of 5 MiB above 5 MiB send the large cases in parts.
const services = useTeamServices();
const MiB = 1024 * 1024;
const small = { multipartThreshold: 5 * MiB, partSize: 5 * MiB };
let made = 0;
const freshPrefix = (): string => `contract/${process.pid}-${++made}`;
const opened: ObjectStore[] = [];

function open(url: string, opts: OpenObjectStoreOptions = {}): ObjectStore {
  const store = openObjectStore(url, '/nonexistent-data-folder', { env: services().env, ...small, ...opts });
  opened.push(store);
  return store;
}

function rawClient(env: TeamEnv): S3Client {
  return new S3Client({
    region: env.AWS_REGION,
    endpoint: env.AWS_ENDPOINT_URL_S3,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
}

afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});

describe('S3 object store on SeaweedFS', () => {
  let raw: S3Client;
  beforeAll(() => {
    raw = rawClient(services().env);
  });
  afterAll(() => raw?.destroy());

  objectStoreContract(async () => open(`s3://lectern/${freshPrefix()}`));

  it('keeps objects under its prefix in the bucket, and lists them without it', async () => {
    const prefix = freshPrefix();
    const store = open(`s3://lectern/${prefix}/`);
    expect(store.location).toBe(`s3://lectern/${prefix}`);
    expect(store.localPath('files/job-1/original.pdf')).toBeUndefined();
    await store.put('files/job-1/original.pdf', Buffer.from('pdf'), { contentType: 'application/pdf' });
    const inBucket = await raw.send(new ListObjectsV2Command({ Bucket: 'lectern', Prefix: `${prefix}/` }));
    expect(inBucket.Contents?.map((o) => o.Key)).toEqual([`${prefix}/files/job-1/original.pdf`]);
    expect(await store.head('files/job-1/original.pdf')).toMatchObject({ size: 3, contentType: 'application/pdf' });
    expect((await store.list('files')).map((o) => o.key)).toEqual(['files/job-1/original.pdf']);
    await checkObjectStore(store);
    const afterCheck = await raw.send(new ListObjectsV2Command({ Bucket: 'lectern', Prefix: `${prefix}/` }));
    expect(afterCheck.Contents?.map((o) => o.Key)).toEqual([`${prefix}/files/job-1/original.pdf`]);
  });

  it('aborts the multipart upload of a write whose source breaks off: no pending upload stays', async () => {
    const prefix = freshPrefix();
    const store = open(`s3://lectern/${prefix}`);
    const pending = async () =>
      (await raw.send(new ListMultipartUploadsCommand({ Bucket: 'lectern', Prefix: `${prefix}/` }))).Uploads ?? [];
    let breakOff!: () => void;
    const broken = new Promise<void>((r) => (breakOff = r));
    const source = Readable.from(
      (async function* () {
        for (let i = 0; i < 12; i++) yield Buffer.alloc(MiB, i);
        await broken;
        throw new Error('the upload broke off');
      })(),
    );
    const writing = store.put('files/job-1/original.pdf', source);
    // 12 MiB read: past the 5 MiB threshold, the upload is under way in parts.
    await expect.poll(async () => (await pending()).map((u) => u.Key)).toEqual([`${prefix}/files/job-1/original.pdf`]);
    breakOff();
    await expect(writing).rejects.toThrow('the upload broke off');
    expect(await pending()).toEqual([]);
    expect(await store.list('files')).toEqual([]);
  });

  it('answers a wrong secret with OBJECT_STORE_FAILED (access denied) naming the bucket, the key and the S3 error', async () => {
    const store = open(`s3://lectern/${freshPrefix()}`, {
      env: { ...services().env, AWS_SECRET_ACCESS_KEY: 'not-the-secret' },
    });
    const err = await store.put('files/job-1/original.pdf', Buffer.from('x')).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      status: 502,
      details: {
        key: 'files/job-1/original.pdf',
        op: 'put',
        reason: 'access_denied',
        s3_code: 'SignatureDoesNotMatch',
        http_status: 403,
      },
    });
    expect((err as Error).message).toMatch(
      /^object store s3:\/\/lectern\/contract\/[\w-]+: could not put files\/job-1\/original\.pdf: access denied to the bucket lectern \(SignatureDoesNotMatch\)/,
    );
    // HEAD answers a bare 403 without a body: still access denied, not "missing".
    await expect(store.head('files/job-1/original.pdf')).rejects.toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { reason: 'access_denied', http_status: 403 },
    });
    await expect(store.get('files/job-1/original.pdf')).rejects.toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { reason: 'access_denied' },
    });
    await expect(checkObjectStore(store)).rejects.toMatchObject({
      code: 'INVALID_SETTINGS',
      message: expect.stringMatching(
        /^object store s3:\/\/lectern\/contract\/[\w-]+: access denied to the bucket lectern \(SignatureDoesNotMatch\): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY[^\n]*$/,
      ),
    });
  });

  it('answers an unknown access key as access denied too', async () => {
    const store = open(`s3://lectern/${freshPrefix()}`, { env: { ...services().env, AWS_ACCESS_KEY_ID: 'nobody' } });
    await expect(store.put('files/a', Buffer.from('x'))).rejects.toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { reason: 'access_denied', http_status: 403 },
    });
  });

  it('answers a bucket that does not exist with a clear error, and writes nothing anywhere', async () => {
    const store = open('s3://no-such-bucket-here/lectern');
    const err = await store.put('files/job-1/original.pdf', Buffer.from('x')).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { reason: 'bucket_missing', s3_code: 'NoSuchBucket', http_status: 404 },
    });
    expect((err as Error).message).toBe(
      `object store s3://no-such-bucket-here/lectern: could not put files/job-1/original.pdf: the bucket no-such-bucket-here does not exist at ${services().env.AWS_ENDPOINT_URL_S3}`,
    );
    await expect(store.list('files')).rejects.toMatchObject({ details: { reason: 'bucket_missing' } });
    await expect(checkObjectStore(store)).rejects.toThrow(
      new RegExp(
        `^object store s3://no-such-bucket-here/lectern: the bucket no-such-bucket-here does not exist at ${services().env.AWS_ENDPOINT_URL_S3}$`,
      ),
    );
  });

  it('refuses, in one line, an object_store_url or endpoint it cannot use', () => {
    for (const [url, why] of [
      ['https://lectern/files', /must be s3:\/\/bucket or s3:\/\/bucket\/prefix/],
      ['s3://', /"" is not a bucket name/],
      ['s3://Lectern_Files/x', /"Lectern_Files" is not a bucket name/],
      ['s3://lectern/../up', /the prefix "..\/up" may hold only/],
    ] as const) {
      expect(() => openObjectStore(url, '/data', { env: {} }), url).toThrow(
        expect.objectContaining({ code: 'INVALID_SETTINGS', message: expect.stringMatching(why) }),
      );
    }
    expect(() => openObjectStore('s3://lectern', '/data', { env: { AWS_ENDPOINT_URL_S3: '127.0.0.1:9000' } })).toThrow(
      /object_store_url s3:\/\/lectern: the endpoint 127\.0\.0\.1:9000 .* must be an http:\/\/ or https:\/\/ URL/,
    );
    const store = openObjectStore('s3://lectern', '/data', { env: {} });
    expect(store.location).toBe('s3://lectern/');
    store.close();
  });
});

describe('an S3 server that stops answering', () => {
  let other: TeamServices;
  let frozen: number | undefined;
  beforeAll(async () => {
    other = await startTeamServices();
  });
  afterAll(async () => {
    if (frozen) process.kill(frozen, 'SIGCONT');
    if (!other) return;
    try {
      await other.stop();
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });
  const openOther = (opts: OpenObjectStoreOptions = {}): ObjectStore =>
    open(`s3://lectern/${freshPrefix()}`, { env: other.env, ...opts });

  it('fails the start-up check in one line within its timeouts when the server accepts connections but never answers', async () => {
    const store = openOther({ connectTimeoutMs: 1000, idleTimeoutMs: 1000, maxAttempts: 2 });
    await checkObjectStore(store);
    // The server's process is frozen: the kernel still accepts connections, nothing answers on them.
    const pid = Number(readFileSync(join(other.dir, 'seaweedfs.pid'), 'utf8'));
    process.kill(pid, 'SIGSTOP');
    frozen = pid;
    try {
      const err = await checkObjectStore(store).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'INVALID_SETTINGS' });
      expect((err as Error).message).toMatch(
        new RegExp(
          `^object store s3://lectern/contract/[\\w-]+: no answer from ${other.env.AWS_ENDPOINT_URL_S3} in time: [^\\n]*1000 ms[^\\n]*$`,
        ),
      );
    } finally {
      process.kill(pid, 'SIGCONT');
      frozen = undefined;
    }
    await checkObjectStore(store);
  });

  it('fails the start-up check in one line when the server is stopped, and a read with a coded error', async () => {
    const store = openOther();
    await store.put('files/job-1/original.pdf', Buffer.from('x'));
    await other.stop();
    const err = await checkObjectStore(store).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_SETTINGS' });
    const endpoint = other.env.AWS_ENDPOINT_URL_S3;
    expect((err as Error).message).toBe(
      `object store ${store.location}: cannot reach ${endpoint}: connect ECONNREFUSED ${endpoint.replace('http://', '')}`,
    );
    await expect(store.get('files/job-1/original.pdf')).rejects.toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { reason: 'unreachable', op: 'get' },
    });
  });
});

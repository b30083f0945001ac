/**
 * Objects in an S3-compatible bucket (AWS S3, SeaweedFS, MinIO, Ceph, R2…), under an optional key prefix.
 *
 * Every request is bounded: a connection that does not open within `connectTimeoutMs`, or a socket silent
 * for `idleTimeoutMs`, fails the attempt, and the SDK makes at most `maxAttempts`. Checksums are sent and
 * checked only where S3 requires them: several S3-compatible servers reject the SDK's default trailing
 * checksums.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { isAppError } from '../../core/errors.js';
import { objectNotFound } from './failure.js';
import { checkKey, type ObjectInfo, type ObjectStore } from './object-store.js';
import { isMissingKey, s3Failed, type S3Where } from './s3-errors.js';
import { uploadObject, type UploadPlan } from './s3-upload.js';

const MiB = 1024 * 1024;

export interface S3StoreOptions {
  bucket: string;
  /** Key prefix inside the bucket, without slashes at either end; '' for the bucket's top. */
  prefix: string;
  /** An S3-compatible server's URL; unset, AWS S3 of the region. Path-style addressing when set. */
  endpoint?: string;
  region: string;
  /** Unset: the AWS SDK's default chain (environment, shared files, SSO, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxAttempts?: number;
  /** Bodies up to this size go in one PutObject, larger ones in parts of partSize (see s3-upload.ts). */
  multipartThreshold?: number;
  partSize?: number;
  partConcurrency?: number;
}

export function createS3Store(opts: S3StoreOptions): ObjectStore {
  const { bucket, prefix } = opts;
  const location = `s3://${bucket}/${prefix}`;
  const where: S3Where = { store: location, bucket, endpoint: opts.endpoint ?? `the S3 endpoint of ${opts.region}` };
  const plan: UploadPlan = {
    threshold: opts.multipartThreshold ?? 16 * MiB,
    partSize: opts.partSize ?? 8 * MiB,
    concurrency: opts.partConcurrency ?? 4,
  };
  // The SDK warns once per process, in nine lines on stderr, that its versions published after January 2027
  // will want Node 22: versions Lectern does not run (package-lock.json pins this one). Said once here
  // instead, so that the server's one-line messages stay one line.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    maxAttempts: opts.maxAttempts ?? 3,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: opts.connectTimeoutMs ?? 5_000, socketTimeout: opts.idleTimeoutMs ?? 30_000 },
  });
  const base = prefix ? `${prefix}/` : '';
  const s3Key = (key: string): string => base + checkKey(key);

  async function send<T>(op: string, key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw isAppError(err) ? err : s3Failed(op, key, err, where);
    }
  }

  /** GET of an existing object; a missing one is OBJECT_NOT_FOUND. */
  async function getObject(op: string, key: string): Promise<GetObjectCommandOutput & { Body: Readable }> {
    const Key = s3Key(key);
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
      if (!(out.Body instanceof Readable)) throw new Error('the SDK answered a body that is not a Node stream');
      return out as GetObjectCommandOutput & { Body: Readable };
    } catch (err) {
      if (isMissingKey(err)) throw objectNotFound(location, key);
      throw s3Failed(op, key, err, where);
    }
  }

  const put: ObjectStore['put'] = async (key, body, opts = {}) => {
    const target = {
      client,
      bucket,
      s3Key: s3Key(key),
      key,
      store: location,
      contentType: opts.contentType,
      send: <T>(op: string, fn: () => Promise<T>) => send(op, key, fn),
    };
    return { key, size: await uploadObject(target, body, plan) };
  };

  const store: ObjectStore = {
    location,
    put,

    async putFile(key, path, opts = {}) {
      await stat(path);
      const written = await put(key, createReadStream(path, { highWaterMark: MiB }), opts);
      if (opts.move) await unlink(path).catch(() => undefined);
      return written;
    },

    async get(key) {
      const out = await getObject('get', key);
      return send('get', key, async () => Buffer.from(await out.Body.transformToByteArray()));
    },

    async getStream(key) {
      return (await getObject('get', key)).Body;
    },

    async download(key, dest) {
      const out = await getObject('download', key);
      const target = resolve(dest);
      const tmp = join(dirname(target), `.${basename(target)}.${randomUUID()}.tmp`);
      try {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(out.Body, createWriteStream(tmp, { flags: 'wx' }));
        const { size } = await stat(tmp);
        await rename(tmp, target);
        return { size };
      } catch (err) {
        out.Body.destroy();
        await rm(tmp, { force: true }).catch(() => undefined);
        throw s3Failed('download', key, err, where);
      }
    },

    localPath: () => undefined,

    async head(key) {
      const Key = s3Key(key);
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
        return {
          key,
          size: out.ContentLength ?? 0,
          modified: out.LastModified ?? new Date(0),
          ...(out.ContentType ? { contentType: out.ContentType } : {}),
        };
      } catch (err) {
        if (isMissingKey(err)) return undefined;
        throw s3Failed('read', key, err, where);
      }
    },

    async exists(key) {
      return (await store.head(key)) !== undefined;
    },

    async delete(key) {
      const Key = s3Key(key);
      await send('delete', key, () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key })));
    },

    async deletePrefix(prefixKey) {
      const listed = await store.list(prefixKey);
      const folder = `${checkKey(prefixKey, 'prefix')}/`;
      for (let at = 0; at < listed.length; at += 1000) {
        const Objects = listed.slice(at, at + 1000).map((o) => ({ Key: base + o.key }));
        const out = await send('delete', folder, () =>
          client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects, Quiet: true } })),
        );
        const first = out.Errors?.[0];
        if (first)
          throw s3Failed(
            'delete',
            first.Key?.slice(base.length) ?? folder,
            { name: first.Code, message: first.Message },
            where,
          );
      }
      return listed.length;
    },

    async list(prefixKey) {
      const folder = `${checkKey(prefixKey, 'prefix')}/`;
      const out: ObjectInfo[] = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await send('list', folder, () =>
          client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: base + folder, ContinuationToken })),
        );
        for (const o of page.Contents ?? []) {
          // Keys ending in '/' are folder markers some consoles make, not objects.
          if (!o.Key || o.Key.endsWith('/')) continue;
          out.push({ key: o.Key.slice(base.length), size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) });
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    close() {
      client.destroy();
    },
  };
  return store;
}

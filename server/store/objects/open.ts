/** Choosing the object store from object_store_url, and the start-up check that refuses one Lectern cannot use. */
import { randomUUID } from 'node:crypto';
import { SettingsError, type Settings } from '../../schemas/settings.js';
import { isAppError } from '../../core/errors.js';
import { oneLine, type ObjectFailureReason } from './failure.js';
import { createLocalFolderStore } from './local-folder.js';
import { checkKey, type ObjectStore } from './object-store.js';
import { createS3Store, type S3StoreOptions } from './s3.js';

/** Limits of the S3 client (s3.ts), for a caller that needs others than the defaults. */
export type S3Tuning = Partial<
  Pick<
    S3StoreOptions,
    'connectTimeoutMs' | 'idleTimeoutMs' | 'maxAttempts' | 'multipartThreshold' | 'partSize' | 'partConcurrency'
  >
>;

/** The environment variables the S3 store reads. */
export type ObjectStoreEnv = Partial<
  Record<
    | 'AWS_ENDPOINT_URL_S3'
    | 'AWS_ENDPOINT_URL'
    | 'AWS_REGION'
    | 'AWS_DEFAULT_REGION'
    | 'AWS_ACCESS_KEY_ID'
    | 'AWS_SECRET_ACCESS_KEY'
    | 'AWS_SESSION_TOKEN',
    string
  >
>;

export interface OpenObjectStoreOptions extends S3Tuning {
  /** Where AWS_ENDPOINT_URL_S3, AWS_REGION and the keys are read; the process's environment by default. */
  env?: ObjectStoreEnv;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

const refuse = (url: string, why: string): SettingsError => new SettingsError(`object_store_url ${url}: ${why}`);

/** `s3://bucket` or `s3://bucket/some/prefix` as bucket and prefix (no slashes at the prefix's ends). */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!m) throw refuse(url, 'must be s3://bucket or s3://bucket/prefix');
  const bucket = m[1]!;
  if (!BUCKET.test(bucket))
    throw refuse(
      url,
      `${JSON.stringify(bucket)} is not a bucket name (3 to 63 lowercase letters, digits, '.' and '-')`,
    );
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix) {
    try {
      checkKey(prefix, 'prefix');
    } catch {
      throw refuse(
        url,
        `the prefix ${JSON.stringify(prefix)} may hold only letters, digits, '_', '-', '.' and '/', no part starting with '.'`,
      );
    }
  }
  return { bucket, prefix };
}

/**
 * The store object_store_url names: an S3 bucket for `s3://…` (endpoint from AWS_ENDPOINT_URL_S3 or
 * AWS_ENDPOINT_URL, region from AWS_REGION, default us-east-1, keys from AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY or else the AWS SDK's default chain); unset, the data folder itself, whose files/
 * and exports/ folders keep the keys they always had.
 */
export function openObjectStore(
  url: string | undefined,
  dataDir: string,
  opts: OpenObjectStoreOptions = {},
): ObjectStore {
  const { env = process.env, ...tuning } = opts;
  if (!url) return createLocalFolderStore(dataDir);
  const { bucket, prefix } = parseS3Url(url);
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint))
    throw refuse(
      url,
      `the endpoint ${endpoint} (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) must be an http:// or https:// URL`,
    );
  const {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
  } = env;
  return createS3Store({
    bucket,
    prefix,
    endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    credentials:
      accessKeyId && secretAccessKey
        ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }
        : undefined,
    ...tuning,
  });
}

const ELSEWHERE =
  'or give another object_store_url (--object-store-url, LECTERN_OBJECT_STORE_URL; unset keeps files in the data folder)';
const HINTS: Record<ObjectFailureReason, string> = {
  unreachable: `start the S3 server or correct AWS_ENDPOINT_URL_S3, ${ELSEWHERE}`,
  timeout: `check that the S3 server at AWS_ENDPOINT_URL_S3 answers, ${ELSEWHERE}`,
  bucket_missing: `create the bucket, ${ELSEWHERE}`,
  access_denied:
    'give AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of a user that may read, write, list and delete in the bucket',
  no_credentials: 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
  full: 'free space in the store',
  failed: `check object_store_url and the AWS_* variables, ${ELSEWHERE}`,
};

/**
 * The object store of `object_store_url` (the data folder itself when it is unset), checked at start when
 * it is a bucket: one Lectern cannot write, read, list and delete in is refused in one line (a
 * SettingsError whose `hint` says what to do).
 */
export async function openCheckedObjectStore(
  settings: Pick<Settings, 'object_store_url' | 'data_dir'>,
  opts: OpenObjectStoreOptions = {},
): Promise<ObjectStore> {
  const store = openObjectStore(settings.object_store_url || undefined, settings.data_dir, opts);
  if (!settings.object_store_url) return store;
  try {
    await checkObjectStore(store);
  } catch (err) {
    store.close();
    throw err;
  }
  return store;
}

/**
 * Writes, reads back, lists and deletes a small probe object: every kind of request Lectern makes. Throws
 * one line (a SettingsError) naming the store and what is wrong: unreachable, no such bucket, access denied.
 */
export async function checkObjectStore(store: ObjectStore): Promise<void> {
  // One folder at the top, so that deleting it leaves no trace, not even an empty folder in a data folder.
  const folder = `lectern-check-${randomUUID()}`;
  const key = `${folder}/probe.txt`;
  const bytes = Buffer.from(`written by Lectern's start-up check at ${new Date().toISOString()}\n`);
  const refusal = (err: unknown): SettingsError => {
    const details = isAppError(err)
      ? (err.details as { why?: string; reason?: ObjectFailureReason } | undefined)
      : undefined;
    const why = isAppError(err) ? (details?.why ?? err.message) : ((err as Error)?.message ?? String(err));
    // What to do, for the command line's "(hint: …)" after the one line.
    return Object.assign(new SettingsError(oneLine(`object store ${store.location}: ${why}`)), {
      hint: HINTS[details?.reason ?? 'failed'],
    });
  };
  try {
    await store.put(key, bytes, { contentType: 'text/plain' });
    const back = await store.get(key);
    if (!back.equals(bytes)) throw new Error(`the probe object ${key} reads back other bytes than were written`);
    const listed = await store.list(folder);
    if (!listed.some((o) => o.key === key))
      throw new Error(`the probe object ${key} is missing from a listing of ${folder}/`);
  } catch (err) {
    await store.deletePrefix(folder).catch(() => undefined);
    throw refusal(err);
  }
  try {
    await store.deletePrefix(folder);
    if (await store.exists(key)) throw new Error(`the probe object ${key} is still there after it was deleted`);
  } catch (err) {
    throw refusal(err);
  }
}

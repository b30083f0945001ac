/** An S3 client's error as a coded store failure, worded for the person who set object_store_url. */
import type { AppError } from '../../core/errors.js';
import { objectStoreFailed, type ObjectFailureReason } from './failure.js';

const NETWORK = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
]);
const DENIED = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AllAccessDisabled',
  'InvalidToken',
  'ExpiredToken',
  'AccountProblem',
]);

/** Where the failing request went, for its message. */
export interface S3Where {
  store: string;
  bucket: string;
  /** The endpoint's URL, or words for the default one ("the S3 endpoint of us-east-1"). */
  endpoint: string;
}

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** A missing key, as GET (NoSuchKey) and HEAD (a bare 404) report it; a missing bucket is not one. */
export function isMissingKey(err: unknown): boolean {
  const e = err as SdkError | null;
  if (e?.name === 'NoSuchKey' || e?.name === 'NotFound') return true;
  return e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket';
}

function classify(e: SdkError, where: S3Where): { reason: ObjectFailureReason; why: string } {
  const name = e.name ?? 'Error';
  // The HTTP handler names itself in its messages ("@smithy/node-http-handler - the request socket timed out…").
  const message = (e.message ?? String(e)).replace(/^@smithy\/[\w-]+ - /, '');
  const status = e.$metadata?.httpStatusCode;
  if (name === 'TimeoutError' || e.code === 'ETIMEDOUT')
    return { reason: 'timeout', why: `no answer from ${where.endpoint} in time: ${message}` };
  if (e.code && NETWORK.has(e.code))
    return { reason: 'unreachable', why: `cannot reach ${where.endpoint}: ${message}` };
  if (name === 'CredentialsProviderError') {
    return {
      reason: 'no_credentials',
      why: `no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source the AWS SDK reads): ${message}`,
    };
  }
  if (name === 'NoSuchBucket')
    return { reason: 'bucket_missing', why: `the bucket ${where.bucket} does not exist at ${where.endpoint}` };
  if (DENIED.has(name) || status === 403) {
    const which = DENIED.has(name) ? name : 'HTTP 403';
    return {
      reason: 'access_denied',
      why: `access denied to the bucket ${where.bucket} (${which}): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and what they may do in the bucket`,
    };
  }
  return { reason: 'failed', why: `${name}${status ? ` (HTTP ${status})` : ''}: ${message}` };
}

export function s3Failed(op: string, key: string, err: unknown, where: S3Where): AppError {
  const e = (err ?? {}) as SdkError;
  const status = e.$metadata?.httpStatusCode;
  return objectStoreFailed({
    store: where.store,
    key,
    op,
    ...classify(e, where),
    ...(e.name && status ? { s3_code: e.name } : {}),
    ...(status ? { http_status: status } : {}),
  });
}

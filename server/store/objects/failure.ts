import { AppError } from '../../core/errors.js';

/**
 * Why a store failed, for a caller that acts on it (the start-up check words its refusal from `why`):
 * unreachable or timeout (the network), bucket_missing, access_denied, no_credentials, full (no space),
 * failed (anything else).
 */
export type ObjectFailureReason =
  | 'unreachable'
  | 'timeout'
  | 'bucket_missing'
  | 'access_denied'
  | 'no_credentials'
  | 'full'
  | 'failed';

export interface ObjectFailureDetails {
  store: string;
  key: string;
  op: string;
  reason: ObjectFailureReason;
  /** The cause in a few words, without the store and key: "the bucket lectern does not exist at http://…". */
  why: string;
  /** The server's own error name and HTTP status, for S3. */
  s3_code?: string;
  http_status?: number;
}

/** One line, whatever the cause's message held. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export function objectStoreFailed(d: ObjectFailureDetails): AppError {
  const why = oneLine(d.why);
  return new AppError('OBJECT_STORE_FAILED', `object store ${d.store}: could not ${d.op} ${d.key}: ${why}`, {
    ...d,
    why,
  });
}

export function objectNotFound(store: string, key: string): AppError {
  return new AppError('OBJECT_NOT_FOUND', `object store ${store} holds no ${key}`, { store, key });
}

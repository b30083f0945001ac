/**
 * The database going away, in the catalogue's words. When a team server's PostgreSQL stops, restarts or
 * cannot be reached, node-postgres fails queries with network errors (ECONNREFUSED…), SQLSTATEs of a server
 * shutting down (57P01…) or its own messages ("Connection terminated unexpectedly"), and drizzle wraps them
 * in a DrizzleQueryError whose `cause` is the driver's error. A database that stops answering without
 * closing anything (frozen, or cut off by the network) fails them once their bound runs out
 * (bounded-waits.ts): a connect or a wait for a pooled connection that timed out, a statement with no answer
 * in time, or one the server cancelled at its statement_timeout. Left as they are, every API call during a
 * restart answered 500 INTERNAL, and the job runner took them for the document's fault. Here they become
 * AppError DATABASE_UNAVAILABLE (503, Retry-After): the repositories and the task queue are wrapped at
 * their door (guardUnavailable), so everything above the store sees one code it can answer, or wait on.
 *
 * Only the driver's connection errors are recognised, on the error itself or the cause drizzle gives it;
 * constraint violations, bad SQL and every other database error pass through unchanged.
 */
import { AppError } from '../../core/errors.js';

/** Seconds a client is told to wait (Retry-After) before asking again. */
export const RETRY_AFTER_S = 2;

/** Socket errors of a connection that could not be made or broke off. */
const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
]);
/**
 * SQLSTATEs of a server that is not there for the moment: class 08 (connection exception), admin_shutdown
 * and crash_shutdown (a backend ended by a stop or a crash), cannot_connect_now (starting up or shutting
 * down), too_many_connections, and query_canceled: no statement here is cancelled on purpose, so that is
 * the statement bound (statement_timeout) that ran out.
 */
const lostState = (code: string): boolean =>
  code.startsWith('08') ||
  code === '57P01' ||
  code === '57P02' ||
  code === '57P03' ||
  code === '53300' ||
  code === '57014';
/**
 * node-postgres's own words for a connection that ended, timed out or was already broken, and the bounded
 * client's for a statement that got no answer in time.
 */
const LOST_MESSAGE =
  /^Connection terminated|timeout exceeded when trying to connect|is not queryable|^no answer from the database in/;

interface Failure {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

function lostReason(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as Failure;
  const code = typeof e.code === 'string' ? e.code : '';
  if (NET_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && lostState(code))) return code;
  if (typeof e.message === 'string' && LOST_MESSAGE.test(e.message)) return e.message.toLowerCase();
  // A host name with several addresses fails with one error per address.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => lostReason(x) !== undefined))
    return lostReason(e.errors[0]);
  return undefined;
}

/** Why the database could not be reached, if that is what `err` says (itself, or as drizzle's cause). */
export function connectionLoss(err: unknown): string | undefined {
  if ((err as AppError | null)?.code === 'DATABASE_UNAVAILABLE')
    return ((err as AppError).details as { reason?: string } | undefined)?.reason ?? 'unavailable';
  return lostReason(err) ?? lostReason((err as Failure | null)?.cause);
}

/** The error to throw instead of `err`: DATABASE_UNAVAILABLE for a lost connection, else `err` itself. */
export function asUnavailable(err: unknown): unknown {
  if ((err as AppError | null)?.code === 'DATABASE_UNAVAILABLE') return err;
  const reason = connectionLoss(err);
  if (reason === undefined) return err;
  const out = new AppError(
    'DATABASE_UNAVAILABLE',
    `the database cannot be reached (${reason}); it may be restarting: try again in a few seconds`,
    {
      reason,
      retry_after_s: RETRY_AFTER_S,
    },
  );
  // Kept for the logs; the API answer shows only the code and the reason above.
  (out as { cause?: unknown }).cause = err;
  return out;
}

const isThenable = (x: unknown): x is PromiseLike<unknown> & { catch: (fn: (e: unknown) => never) => unknown } =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as { then?: unknown }).then === 'function' &&
  typeof (x as { catch?: unknown }).catch === 'function';

/**
 * The same object, each of its methods throwing DATABASE_UNAVAILABLE for a lost connection (sync throws
 * and rejected promises alike). Methods are bound to the original, so repositories built as object
 * literals or as classes both work.
 */
export function guardUnavailable<T extends object>(target: T): T {
  const wrapped = new Map<PropertyKey, unknown>();
  const rethrow = (err: unknown): never => {
    throw asUnavailable(err);
  };
  return new Proxy(target, {
    get(t, key, receiver) {
      const value = Reflect.get(t, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(key);
      if (!fn) {
        const original = value as (...args: unknown[]) => unknown;
        fn = (...args: unknown[]) => {
          try {
            const out = original.apply(t, args);
            return isThenable(out) ? out.catch(rethrow) : out;
          } catch (err) {
            return rethrow(err);
          }
        };
        wrapped.set(key, fn);
      }
      return fn;
    },
  });
}

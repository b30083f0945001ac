/**
 * What the three readers (link, encyclopedia, web search) share about talking to a remote: the headers
 * they send, and one way of turning a remote error status or an unreadable answer into a coded error.
 */
import { STATUS_CODES } from 'node:http';
import { AppError, isAppError } from '../errors.js';
import type { GuardedFetch, GuardedRequest, GuardedResponse } from '../net/types.js';

/**
 * Wikimedia refuses or throttles clients without a descriptive User-Agent (its User-Agent policy), and
 * other sites treat a runtime's default one ("node", "undici") as a bot to block.
 */
export const READER_USER_AGENT = 'Lectern (offline document reader)';

/**
 * Fetches `url` and returns the response when it is a 2xx. Any other status throws `FETCH_FAILED` with
 * the status in `details`: the guarded fetch hands remote errors back as responses, and every caller
 * here treats them the same way. `what` names the remote in the message ("the link", "the encyclopedia").
 */
export async function fetchOk(
  fetch: GuardedFetch,
  url: string,
  req: GuardedRequest,
  what: string,
): Promise<GuardedResponse> {
  const res = await fetch(url, { ...req, headers: { 'user-agent': READER_USER_AGENT, ...req.headers } });
  if (res.status >= 200 && res.status < 300) return res;
  // Nothing will read the error page: release the connection instead of letting it wait for a timeout.
  await res.body?.cancel().catch(() => undefined);
  const reason = STATUS_CODES[res.status];
  throw new AppError('FETCH_FAILED', `${what} answered ${res.status}${reason ? ` ${reason}` : ''}`, {
    url: res.url,
    status: res.status,
  });
}

/**
 * The body parsed as JSON. A body past the byte limit keeps its own code (`RESPONSE_TOO_LARGE`); a
 * body that is not JSON is `FETCH_FAILED`, as the remote did not give what was asked for.
 */
export async function readJsonBody(res: GuardedResponse, what: string): Promise<unknown> {
  try {
    return await res.json();
  } catch (err) {
    if (isAppError(err)) throw err;
    throw new AppError('FETCH_FAILED', `${what} did not answer JSON`, {
      url: res.url,
      content_type: res.headers.get('content-type'),
    });
  }
}

/** A JSON object's property as a record, or undefined: remote JSON is checked field by field. */
export function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

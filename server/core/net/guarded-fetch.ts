import { Agent, Pool, fetch as undiciFetch, type Response as UndiciResponse } from 'undici';
import { AppError, isAppError } from '../errors.js';
import {
  checkingLookup,
  checkTargetStatically,
  parseAllowedHosts,
  parseTarget,
  type Target,
} from './address-policy.js';
import { limitedBody, readAll } from './limited-body.js';
import type { GuardedFetch, GuardedRequest, GuardedResponse, NetPolicy } from './types.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What may follow a redirect to another origin: nothing that can carry a credential or a key. */
const CROSS_ORIGIN_HEADERS = new Set([
  'accept',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'if-range',
  'range',
  'user-agent',
]);
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language'];

interface Deadline {
  signal: AbortSignal;
  clear(): void;
}

/** The caller's signal joined with the total timeout, which aborts with FETCH_FAILED as its reason. */
function startDeadline(ms: number, caller: AbortSignal | undefined, origin: string): Deadline {
  const timeout = new AbortController();
  // 0: no overall limit (long downloads); the agent's idle limits still apply.
  const timer =
    ms > 0
      ? setTimeout(
          () =>
            timeout.abort(
              new AppError('FETCH_FAILED', `${origin} gave no complete answer within ${ms} ms`, { origin }),
            ),
          ms,
        )
      : undefined;
  return {
    signal: caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal,
    clear: () => clearTimeout(timer),
  };
}

/** undici wraps connection errors (ours from the lookup among them) in `TypeError('fetch failed')`. */
function causeChain(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * A coded error for anything a fetch or its body throws. The caller's own abort passes as it is; the
 * message names the origin and the low-level cause, never anything the remote sent.
 */
function translate(err: unknown, origin: string, caller: AbortSignal | undefined): unknown {
  if (caller?.aborted) return err;
  const coded = causeChain(err).find(isAppError);
  if (coded) return coded;
  const cause = causeChain(err).at(-1) as { code?: unknown; message?: unknown } | undefined;
  const why = [cause?.code, cause?.message].filter((x) => typeof x === 'string' && x).join(' ') || String(err);
  return new AppError('FETCH_FAILED', `cannot fetch from ${origin}: ${why}`, { origin });
}

function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Where a redirect points; a Location that is no fetchable URL fails the request (the remote's fault, not the caller's). */
function redirectTarget(location: string, from: Target): Target {
  let href: string;
  try {
    href = new URL(location, from.url).href;
  } catch {
    throw new AppError('FETCH_FAILED', `${from.url.origin} redirected to something that is not a URL`, {
      origin: from.url.origin,
    });
  }
  try {
    return parseTarget(href);
  } catch (err) {
    throw new AppError(
      'FETCH_FAILED',
      `${from.url.origin} redirected to a URL that cannot be fetched: ${(err as Error).message}`,
      { origin: from.url.origin },
    );
  }
}

/**
 * The one guarded fetch (contract in ./types.ts). Each host is judged before anything is sent: IP
 * literals and reserved names at once, names by the agent's lookup, which checks every resolved address
 * and connects to exactly those (one undici pool per origin, so connections are reused). Redirects are
 * followed by hand so that each hop is judged the same way and credentials never follow to another origin.
 */
export function createGuardedFetch(policy: NetPolicy): GuardedFetch {
  const allowed = parseAllowedHosts(policy.allowedPrivateHosts);
  const agent = new Agent({
    // No single wait for headers or for the next body chunk longer than the policy's total; this is also
    // what stops a stalled download that asked for no overall limit.
    headersTimeout: policy.totalTimeoutMs,
    bodyTimeout: policy.totalTimeoutMs,
    factory: (origin, opts) => {
      const t = parseTarget(String(origin));
      return new Pool(origin, {
        ...opts,
        connect: { timeout: policy.connectTimeoutMs, lookup: checkingLookup(t.host, t.port, allowed) },
      });
    },
  });

  async function follow(
    first: Target,
    req: GuardedRequest,
    signal: AbortSignal,
  ): Promise<{ res: UndiciResponse; target: Target }> {
    let target = first;
    let method: string = req.method ?? 'GET';
    let body = req.body;
    let headers = lowerCased(req.headers);
    for (let redirects = 0; ; redirects++) {
      checkTargetStatically(target, allowed);
      const res = await undiciFetch(target.url.href, {
        method,
        headers,
        body,
        redirect: 'manual',
        signal,
        dispatcher: agent,
      });
      const location = res.headers.get('location');
      if (!REDIRECT_STATUSES.has(res.status) || req.followRedirects === false || location === null)
        return { res, target };
      await res.body?.cancel().catch(() => {});
      if (redirects >= policy.maxRedirects) {
        throw new AppError('FETCH_FAILED', `${first.url.origin} redirected more than ${policy.maxRedirects} times`, {
          origin: first.url.origin,
        });
      }
      const next = redirectTarget(location, target);
      // As browsers do: 303 always, and 301/302 after a POST, continue as a GET without the body.
      if (
        (res.status === 303 && method !== 'HEAD') ||
        ((res.status === 301 || res.status === 302) && method === 'POST')
      ) {
        method = 'GET';
        body = undefined;
        for (const h of BODY_HEADERS) delete headers[h];
      }
      if (next.url.origin !== target.url.origin)
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.has(k)));
      target = next;
    }
  }

  return async function guardedFetch(url: string, req: GuardedRequest = {}): Promise<GuardedResponse> {
    const first = parseTarget(url);
    const deadline = startDeadline(req.totalTimeoutMs ?? policy.totalTimeoutMs, req.signal, first.url.origin);
    let answered: { res: UndiciResponse; target: Target };
    try {
      answered = await follow(first, req, deadline.signal);
    } catch (err) {
      deadline.clear();
      throw translate(err, first.url.origin, req.signal);
    }
    return guardedResponse(answered.res, answered.target, {
      limit: req.maxBytes ?? policy.maxBytes,
      deadline,
      caller: req.signal,
    });
  };
}

/** The answer with its body under the byte limit; the deadline stops once the body is read or dropped. */
function guardedResponse(
  res: UndiciResponse,
  target: Target,
  o: { limit: number; deadline: Deadline; caller: AbortSignal | undefined },
): GuardedResponse {
  const origin = target.url.origin;
  const length = res.headers.get('content-length');
  // A compressed answer's declared length is not what is read: only the count while reading tells.
  const declaredLength = length !== null && !res.headers.has('content-encoding') ? Number(length) : undefined;
  const body = res.body
    ? limitedBody(res.body as ReadableStream<Uint8Array>, {
        origin,
        limit: o.limit,
        declaredLength,
        translate: (err) => translate(err, origin, o.caller),
        settle: o.deadline.clear,
      })
    : null;
  if (!body) o.deadline.clear();
  let whole: Promise<Uint8Array> | undefined;
  const bytes = (): Promise<Uint8Array> => (whole ??= readAll(body));
  const text = async (): Promise<string> => new TextDecoder().decode(await bytes());
  return {
    status: res.status,
    url: target.url.href,
    headers: res.headers as unknown as Headers,
    body,
    bytes,
    text,
    async json() {
      const raw = await text();
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        // JSON.parse quotes the text it choked on: say only that it was not JSON.
        throw new AppError('FETCH_FAILED', `${origin} answered ${res.status} with a body that is not JSON`, {
          origin,
          status: res.status,
        });
      }
    },
  };
}

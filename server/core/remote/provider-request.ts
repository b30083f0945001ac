import { AppError, type ErrorCode } from '../errors.js';
import { parseTarget } from '../net/address-policy.js';
import type { GuardedFetch, GuardedResponse } from '../net/types.js';

/** What a provider's error status most likely means, said without quoting its body. */
function reasonOf(status: number): string {
  if (status === 401 || status === 403) return 'the key is missing or refused';
  if (status === 404) return 'no such endpoint or model';
  if (status === 429) return 'rate limited';
  if (status >= 300 && status < 400) return 'a redirect, which a model provider is not followed through';
  if (status >= 500) return 'the provider failed';
  return 'the request was refused';
}

/**
 * Checks a provider's base URL before anything is retrieved or streamed: not an http(s) URL, or one
 * carrying a user name or password, is 400 URL_INVALID. Whether its host may be reached is judged by the
 * guarded fetch at the request (403 URL_NOT_ALLOWED).
 */
export function checkBaseUrl(baseUrl: string): void {
  parseTarget(baseUrl);
}

/**
 * POSTs JSON to a remote model provider (OpenAI-compatible or Ollama) through the guarded fetch and
 * returns its answer once the status says it succeeded. URL_INVALID and URL_NOT_ALLOWED pass as they are;
 * network failures and error statuses become an AppError with `code` (the caller's provider error)
 * naming the URL and the status, never the body; an abort by the caller is passed through as it is. A
 * request carrying a key follows no redirect: the key must reach the server it was given for, nothing else.
 */
export async function postToProvider(
  net: GuardedFetch,
  code: ErrorCode,
  url: string,
  body: unknown,
  apiKey: string | undefined,
  signal?: AbortSignal,
): Promise<GuardedResponse & { body: ReadableStream<Uint8Array> }> {
  let res: GuardedResponse;
  try {
    res = await net(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal,
      followRedirects: apiKey === undefined,
    });
  } catch (err) {
    const c = (err as { code?: unknown }).code;
    if (signal?.aborted || c === 'URL_INVALID' || c === 'URL_NOT_ALLOWED') throw err;
    throw new AppError(code, `cannot reach ${url}: ${(err as Error).message}`, { url });
  }
  if (res.status < 200 || res.status >= 300 || !res.body) {
    // Unread, the body would hold the connection open until the timeout.
    await res.body?.cancel().catch(() => {});
    throw new AppError(code, `${url} answered ${res.status}: ${reasonOf(res.status)}`, { url, status: res.status });
  }
  return res as GuardedResponse & { body: ReadableStream<Uint8Array> };
}

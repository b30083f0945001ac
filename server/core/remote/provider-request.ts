import { AppError, type ErrorCode } from '../errors.js';

/**
 * POSTs JSON to a remote model provider (OpenAI-compatible or Ollama) and returns its answer once the
 * status says it succeeded. Network failures and error statuses become an AppError with `code` (the
 * caller's provider error) naming the URL; an abort by the caller is passed through as it is.
 */
export async function postToProvider(code: ErrorCode, url: string, body: unknown, apiKey: string | undefined, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new AppError(code, `cannot reach ${url}: ${(err as Error).message}`, { url });
  }
  if (!res.ok || !res.body) throw new AppError(code, `${url} answered ${res.status}: ${(await res.text()).slice(0, 500)}`, { url, status: res.status });
  return res;
}

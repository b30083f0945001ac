/**
 * Web search for chats (`web_search: true`) through a SearxNG instance, or anything answering its JSON
 * API: `GET {url}/search?q=...&format=json` -> `{ results: [{ url, title, content }] }`. SearxNG answers
 * 403 unless `json` is listed under `search.formats` in its settings.yml; the error says so.
 */
import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import { checkedQuery } from './search-query.js';
import { fetchOk, readJsonBody } from './source-fetch.js';

export interface WebResult {
  title: string;
  url: string;
  /** The engine's excerpt of the page, plain text ('' when it gave none). */
  snippet: string;
}

export interface WebSearchOptions {
  /** Results wanted; 1..50, default 5 (as Long-Trainer). Only the first page of results is asked for. */
  limit?: number;
  signal?: AbortSignal;
}

function searchUrl(base: string, query: string): string {
  let url: URL;
  try {
    url = new URL(base);
    // Guides and other tools write the search endpoint itself (`https://host/search`); the instance's root
    // (`https://host/`, or a path prefix such as `https://host/searx`) gets `search` added under it.
    url.search = '';
    if (/\/search\/?$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/$/, '');
    else url = new URL('search', url.href.endsWith('/') ? url.href : `${url.href}/`);
  } catch {
    throw new AppError('URL_INVALID', 'the web search address is not a URL', { url: base });
  }
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  return url.href;
}

const clean = (v: unknown): string => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '');

function isWebUrl(v: string): boolean {
  try {
    const { protocol } = new URL(v);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The first `limit` results for `query`, in the engine's order, each URL once; results without an
 * http(s) URL are dropped. Throws `VALIDATION_FAILED` (empty query, bad limit), `FETCH_FAILED` (a
 * non-2xx answer, with `details.status`, or an answer without `results`) and the guarded fetch's codes.
 */
export async function webSearch(
  fetch: GuardedFetch,
  searxUrl: string,
  query: string,
  opts: WebSearchOptions = {},
): Promise<WebResult[]> {
  const limit = opts.limit ?? 5;
  const q = checkedQuery(query, 'limit', limit, { limit });
  const url = searchUrl(searxUrl, q);
  const res = await fetchOk(
    fetch,
    url,
    { signal: opts.signal, headers: { accept: 'application/json' } },
    'the web search',
  ).catch((err: unknown) => {
    const e = err as { code?: unknown; details?: { status?: unknown } };
    if (e.code === 'FETCH_FAILED' && e.details?.status === 403) {
      throw new AppError(
        'FETCH_FAILED',
        'the web search refused JSON (403): list "json" under search.formats in SearxNG\'s settings.yml',
        e.details,
      );
    }
    throw err;
  });
  const body = await readJsonBody(res, 'the web search');
  const results = typeof body === 'object' && body !== null ? (body as { results?: unknown }).results : undefined;
  if (!Array.isArray(results))
    throw new AppError('FETCH_FAILED', 'the web search answered JSON without a results list', { url: res.url });

  const out: WebResult[] = [];
  const seen = new Set<string>();
  for (const r of results) {
    if (out.length >= limit) break;
    if (typeof r !== 'object' || r === null) continue;
    const item = r as { url?: unknown; title?: unknown; content?: unknown };
    const link = clean(item.url);
    if (!isWebUrl(link) || seen.has(link)) continue;
    seen.add(link);
    out.push({ title: clean(item.title) || link, url: link, snippet: clean(item.content) });
  }
  return out;
}

/**
 * Encyclopedia articles from a MediaWiki API (Wikipedia by default), found the way Long-Trainer's
 * `wikipedia` package finds them: a full-text search, then each hit's page info (skipping missing and
 * disambiguation pages, following redirects), then its plain-text extract and revision id. Unlike it,
 * articles are never cut short, and the search goes on past skipped hits until enough articles are found.
 *
 * The three requests, all `action=query&format=json`:
 *   list=search&srsearch=Q&srlimit=N[&sroffset=...]                       (MediaWiki `continue`)
 *   prop=info|pageprops&inprop=url&ppprop=disambiguation&redirects=&titles=T
 *   prop=extracts|revisions&explaintext=&rvprop=ids&titles=T                (extract parts joined)
 */
import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import { checkedQuery } from './search-query.js';
import { fetchOk, objectAt, readJsonBody } from './source-fetch.js';
import { wikiExtractToMarkdown } from './wiki-markdown.js';

/** The API used when none is configured: English Wikipedia. */
export const DEFAULT_ENCYCLOPEDIA_API = 'https://en.wikipedia.org/w/api.php';

export interface EncyclopediaArticle {
  title: string;
  /** The article's page (the API's `fullurl`). */
  url: string;
  revision_id: number;
  page_id: number;
  /** The whole article as Markdown: `# Title`, section headings as `##`..., one paragraph per line. */
  text: string;
  /** The page's language as the wiki reports it, else the one asked for, else the API host's. */
  language: string;
}

export interface EncyclopediaOptions {
  language?: string;
  /** Articles wanted; 1..50, default 2 (as Long-Trainer). */
  maxPages?: number;
  signal?: AbortSignal;
}

/** Search hits looked at before giving up on finding `maxPages` articles (skipped pages included). */
const MAX_CANDIDATES = 50;
/** Search requests made at most for one call. */
const MAX_SEARCH_ROUNDS = 20;
/** Continuation rounds for one article's extract; a wiki that never ends its parts is cut off here. */
const MAX_EXTRACT_PARTS = 100;
const LANGUAGE = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$|^simple$/;

/**
 * The API a search goes to. `language` picks `https://{language}.wikipedia.org/w/api.php` only when
 * `apiUrl` is the default (English Wikipedia): a configured wiki (a mirror, an intranet MediaWiki) is
 * used as it is, since its other languages, if any, live at addresses only its owner knows.
 */
export function encyclopediaApiUrl(apiUrl: string, language?: string): string {
  let parsed: URL;
  try {
    parsed = new URL(apiUrl);
  } catch {
    throw new AppError('URL_INVALID', 'the encyclopedia API address is not a URL', { url: apiUrl });
  }
  if (language === undefined) return parsed.href;
  if (!LANGUAGE.test(language)) {
    throw new AppError('VALIDATION_FAILED', `"${language}" is not a Wikipedia language code (en, de, zh-yue...)`, {
      language,
    });
  }
  return parsed.href === DEFAULT_ENCYCLOPEDIA_API ? `https://${language}.wikipedia.org/w/api.php` : parsed.href;
}

type Json = Record<string, unknown>;

interface Api {
  fetch: GuardedFetch;
  url: string;
  signal: AbortSignal | undefined;
}

async function query(api: Api, params: Record<string, string>): Promise<Json> {
  const url = new URL(api.url);
  for (const [k, v] of Object.entries({ action: 'query', format: 'json', ...params })) url.searchParams.set(k, v);
  const res = await fetchOk(
    api.fetch,
    url.href,
    { signal: api.signal, headers: { accept: 'application/json' } },
    'the encyclopedia',
  );
  const body = await readJsonBody(res, 'the encyclopedia');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('FETCH_FAILED', 'the encyclopedia answered something other than an API result', {
      url: res.url,
    });
  }
  const error = objectAt(body, 'error');
  if (error) {
    throw new AppError(
      'FETCH_FAILED',
      `the encyclopedia refused the query: ${String(error['info'] ?? error['code'])}`,
      { url: res.url, code: error['code'] },
    );
  }
  return body as Json;
}

/** The `continue` object to send back, as the API asks (all its keys, unchanged). */
function continuation(body: Json): Record<string, string> | undefined {
  const cont = objectAt(body, 'continue');
  if (!cont) return undefined;
  return Object.fromEntries(Object.entries(cont).map(([k, v]) => [k, String(v)]));
}

/** `query.pages`: an object keyed by page id (formatversion 1) or an array (formatversion 2). */
function pagesOf(body: Json): Json[] {
  const pages = objectAt(body, 'query')?.['pages'];
  const list = Array.isArray(pages) ? pages : typeof pages === 'object' && pages !== null ? Object.values(pages) : [];
  return list.filter((p): p is Json => typeof p === 'object' && p !== null);
}

const has = (page: Json, key: string): boolean => page[key] !== undefined && page[key] !== false;

interface PageInfo {
  page_id: number;
  title: string;
  url: string;
  language: string | undefined;
  last_revision: number | undefined;
}

/** Page info of `title` after redirects; null for a missing, invalid or disambiguation page. */
async function pageInfo(api: Api, title: string): Promise<PageInfo | null> {
  const body = await query(api, {
    prop: 'info|pageprops',
    inprop: 'url',
    ppprop: 'disambiguation',
    redirects: '',
    titles: title,
  });
  const page = pagesOf(body)[0];
  if (!page || has(page, 'missing') || has(page, 'invalid') || typeof page['pageid'] !== 'number') return null;
  if (objectAt(page, 'pageprops')?.['disambiguation'] !== undefined) return null;
  const resolved = typeof page['title'] === 'string' ? page['title'] : title;
  const fullurl = typeof page['fullurl'] === 'string' ? page['fullurl'] : undefined;
  return {
    page_id: page['pageid'],
    title: resolved,
    // Without `fullurl` (an old or trimmed-down wiki), the page by id, beside the API.
    url: fullurl ?? new URL(`index.php?curid=${page['pageid']}`, api.url).href,
    language: typeof page['pagelanguage'] === 'string' ? page['pagelanguage'] : undefined,
    last_revision: typeof page['lastrevid'] === 'number' ? page['lastrevid'] : undefined,
  };
}

/**
 * The whole plain-text extract and the revision id of a page. When the API splits its answer (an
 * extract too large for one result, or several pages), it sends `continue`: the request is repeated
 * with it until it stops, and the parts of the extract are joined in order.
 */
async function pageText(api: Api, info: PageInfo): Promise<{ extract: string; revision_id: number | undefined }> {
  let extract = '';
  let revision_id: number | undefined;
  let cont: Record<string, string> | undefined = {};
  for (let round = 0; cont !== undefined && round < MAX_EXTRACT_PARTS; round++) {
    const body = await query(api, {
      prop: 'extracts|revisions',
      explaintext: '',
      exsectionformat: 'wiki',
      rvprop: 'ids',
      titles: info.title,
      ...cont,
    });
    const page = pagesOf(body).find((p) => p['pageid'] === info.page_id);
    if (typeof page?.['extract'] === 'string') extract += page['extract'];
    const revisions = page?.['revisions'];
    const first: unknown = Array.isArray(revisions) ? revisions[0] : undefined;
    const revid = typeof first === 'object' && first !== null ? (first as Json)['revid'] : undefined;
    if (revision_id === undefined && typeof revid === 'number') revision_id = revid;
    cont = continuation(body);
  }
  return { extract, revision_id };
}

function hostLanguage(apiUrl: string): string | undefined {
  const m = /^([a-z-]+)\.(?:m\.)?wikipedia\.org$/.exec(new URL(apiUrl).hostname);
  return m?.[1];
}

/** Titles of one page of search results, and how to ask for the next one. */
async function searchPage(
  api: Api,
  q: string,
  limit: number,
  cont: Record<string, string>,
): Promise<{ titles: string[]; next: Record<string, string> | undefined }> {
  const body = await query(api, { list: 'search', srsearch: q, srlimit: String(limit), srprop: '', ...cont });
  const hits = objectAt(body, 'query')?.['search'];
  const titles = (Array.isArray(hits) ? hits : [])
    .map((h: unknown) => (typeof h === 'object' && h !== null ? (h as Json)['title'] : undefined))
    .filter((t): t is string => typeof t === 'string' && t !== '');
  return { titles, next: titles.length > 0 ? continuation(body) : undefined };
}

/**
 * Up to `maxPages` whole articles matching `query`, in search order. Throws `VALIDATION_FAILED` for an
 * empty query, a bad language or page count, and the guarded fetch's codes; an API error or a non-2xx
 * answer is `FETCH_FAILED`. No match is an empty list, not an error.
 */
export async function searchEncyclopedia(
  fetch: GuardedFetch,
  apiUrl: string,
  searchQuery: string,
  opts: EncyclopediaOptions = {},
): Promise<EncyclopediaArticle[]> {
  const maxPages = opts.maxPages ?? 2;
  const q = checkedQuery(searchQuery, 'maxPages', maxPages, { max_pages: maxPages });
  const api: Api = { fetch, url: encyclopediaApiUrl(apiUrl, opts.language), signal: opts.signal };

  const articles: EncyclopediaArticle[] = [];
  const seenTitles = new Set<string>();
  const seenPages = new Set<number>();
  // A few spare hits per request, as some turn out to be disambiguation pages or redirects to one seen.
  const limit = Math.min(50, maxPages + 3);
  let cont: Record<string, string> | undefined = {};
  // Rounds are counted too: a wiki that ignores `sroffset` would send the same hits and `continue` forever.
  for (
    let round = 0;
    cont !== undefined && articles.length < maxPages && seenTitles.size < MAX_CANDIDATES && round < MAX_SEARCH_ROUNDS;
    round++
  ) {
    const { titles, next } = await searchPage(api, q, limit, cont);
    for (const title of titles) {
      if (articles.length >= maxPages || seenTitles.size >= MAX_CANDIDATES) break;
      if (seenTitles.has(title)) continue;
      seenTitles.add(title);
      const info = await pageInfo(api, title);
      if (!info || seenPages.has(info.page_id)) continue;
      seenPages.add(info.page_id);
      const { extract, revision_id } = await pageText(api, info);
      if (extract.trim() === '') continue; // a page without text (a file or category hit) is no article
      articles.push({
        title: info.title,
        url: info.url,
        revision_id: revision_id ?? info.last_revision ?? 0,
        page_id: info.page_id,
        text: wikiExtractToMarkdown(info.title, extract),
        language: info.language ?? opts.language ?? hostLanguage(api.url) ?? 'und',
      });
    }
    cont = next;
  }
  return articles;
}

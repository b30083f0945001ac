import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { extractMarkdown } from '../../server/core/extract/flow/markdown.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { GuardedFetch, NetPolicy } from '../../server/core/net/types.js';
import {
  DEFAULT_ENCYCLOPEDIA_API,
  encyclopediaApiUrl,
  searchEncyclopedia,
} from '../../server/core/sources/mediawiki.js';
import {
  HITS_PER_REQUEST,
  LONG_PARTS,
  SEARCH_HITS,
  startMediaWikiServer,
  WIKI_PAGES,
  type MediaWikiServer,
} from '../helpers/mediawiki-server.js';
import { readerPolicy } from '../helpers/net-policy.js';

let wiki: MediaWikiServer;
let fetch: GuardedFetch;
let policy: NetPolicy;

beforeAll(async () => {
  wiki = await startMediaWikiServer();
  policy = readerPolicy(wiki.apiUrl);
  fetch = createGuardedFetch(policy);
});
afterAll(() => wiki.close());
beforeEach(() => {
  wiki.requests.length = 0;
});

const longPage = WIKI_PAGES.find((p) => p.pageid === 103)!;
const kind = (q: URLSearchParams): string => q.get('list') ?? q.get('prop') ?? '?';

describe('searchEncyclopedia', () => {
  it('skips disambiguation and missing pages, follows redirects, and searches on until it has maxPages articles', async () => {
    const articles = await searchEncyclopedia(fetch, wiki.apiUrl, 'heat');
    expect(articles.map((a) => [a.title, a.page_id, a.revision_id, a.language])).toEqual([
      ['Thermal conduction', 103, 9003, 'en'], // the hit "Conduction" redirects here
      ['Heat transfer', 101, 9001, 'en'],
    ]);
    expect(articles[1]?.url).toBe('https://wiki.example/wiki/Heat_transfer');
    // The first result page held only a disambiguation page and a missing one: a second was asked for.
    const searches = wiki.requests.filter((q) => q.get('list') === 'search');
    expect(searches.map((q) => q.get('sroffset'))).toEqual([null, String(HITS_PER_REQUEST)]);
    const looked = wiki.requests.filter((q) => q.get('prop') === 'info|pageprops').map((q) => q.get('titles'));
    expect(looked).toEqual(SEARCH_HITS.slice(0, 4));
    // No extract was fetched for the skipped pages.
    const extracted = new Set(
      wiki.requests.filter((q) => q.get('prop') === 'extracts|revisions').map((q) => q.get('titles')),
    );
    expect([...extracted]).toEqual(['Thermal conduction', 'Heat transfer']);
  });

  it('sends the three query forms of the wikipedia package', async () => {
    await searchEncyclopedia(fetch, wiki.apiUrl, 'heat transfer', { maxPages: 1 });
    const search = wiki.requests.find((q) => kind(q) === 'search');
    const info = wiki.requests.find((q) => kind(q) === 'info|pageprops');
    const extract = wiki.requests.find((q) => kind(q) === 'extracts|revisions');
    for (const q of wiki.requests) expect([q.get('action'), q.get('format')]).toEqual(['query', 'json']);
    expect(search && [search.get('list'), search.get('srsearch'), Number(search.get('srlimit')) >= 1]).toEqual([
      'search',
      'heat transfer',
      true,
    ]);
    expect(
      info && Object.fromEntries(['prop', 'inprop', 'ppprop', 'redirects', 'titles'].map((k) => [k, info.get(k)])),
    ).toEqual({
      prop: 'info|pageprops',
      inprop: 'url',
      ppprop: 'disambiguation',
      redirects: '',
      titles: SEARCH_HITS[0],
    });
    expect(
      extract && Object.fromEntries(['prop', 'explaintext', 'rvprop', 'titles'].map((k) => [k, extract.get(k)])),
    ).toEqual({
      prop: 'extracts|revisions',
      explaintext: '',
      rvprop: 'ids',
      titles: 'Thermal conduction',
    });
  });

  it('returns a long article whole, joining the parts the API sends with continuation', async () => {
    const [article] = await searchEncyclopedia(fetch, wiki.apiUrl, 'conduction', { maxPages: 1 });
    const parts = wiki.requests.filter((q) => q.get('prop') === 'extracts|revisions');
    expect(parts.map((q) => q.get('excontinue'))).toEqual([
      null,
      ...Array.from({ length: LONG_PARTS - 1 }, (_, i) => String(i + 1)),
    ]);
    expect(article?.revision_id).toBe(9003);
    const text = article?.text ?? '';
    expect(text.length).toBeGreaterThan(8_000); // twice what Long-Trainer keeps (4,000 characters)
    // Every line of the extract is there, in order, none cut where the parts were split.
    const lines = longPage.extract.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('=='));
    let from = 0;
    for (const line of lines) {
      const at = text.indexOf(line, from);
      expect(at, line).toBeGreaterThanOrEqual(from);
      from = at + line.length;
    }
    const blocks = extractMarkdown(text).blocks;
    expect(blocks.filter((b) => b.type === 'heading').map((b) => `${b.heading_level} ${b.text}`)).toEqual([
      '1 Thermal conduction',
      "2 Fourier's law",
      '2 Conductivity of solids',
      '2 Measurement',
    ]);
    expect(blocks.filter((b) => b.type === 'paragraph')).toHaveLength(lines.length);
  });

  it('turns section headings into Markdown headings and keeps every line of text exactly as written', async () => {
    const [article] = await searchEncyclopedia(fetch, wiki.apiUrl, 'heat transfer', { maxPages: 2 }).then((a) =>
      a.filter((x) => x.page_id === 101),
    );
    expect(article?.text).toBe(
      '# Heat transfer\n\n' +
        'Heat transfer is a discipline of thermal engineering.\n\n' +
        'It concerns \\*generation\\*, use, conversion and exchange of thermal energy between physical systems.\n\n' +
        '## Mechanisms\n\n' +
        'The fundamental modes are conduction, convection and radiation.\n\n' +
        '1\\. Conduction is the first mode; \\<b\\> is not a tag here \\& neither is \\&amp;.\n\n' +
        '### Radiation\n\n' +
        '\\# Not a heading: a hash at the start of a line.\n',
    );
    // Read back by Lectern's Markdown extractor: the structure, and the article's own text.
    const blocks = extractMarkdown(article?.text ?? '').blocks;
    expect(blocks.map((b) => [b.type, b.heading_level ?? null, b.text])).toEqual([
      ['heading', 1, 'Heat transfer'],
      ['paragraph', null, 'Heat transfer is a discipline of thermal engineering.'],
      [
        'paragraph',
        null,
        'It concerns *generation*, use, conversion and exchange of thermal energy between physical systems.',
      ],
      ['heading', 2, 'Mechanisms'],
      ['paragraph', null, 'The fundamental modes are conduction, convection and radiation.'],
      ['paragraph', null, '1. Conduction is the first mode; <b> is not a tag here & neither is &amp;.'],
      ['heading', 3, 'Radiation'],
      ['paragraph', null, '# Not a heading: a hash at the start of a line.'],
    ]);
  });

  it('finds each article once and stops when the results run out', async () => {
    const articles = await searchEncyclopedia(fetch, wiki.apiUrl, 'heat', { maxPages: 10 });
    expect(articles.map((a) => a.title)).toEqual(['Thermal conduction', 'Heat transfer', 'Convection']);
    expect(wiki.requests.filter((q) => q.get('list') === 'search')).toHaveLength(
      Math.ceil(SEARCH_HITS.length / HITS_PER_REQUEST),
    );
    expect(await searchEncyclopedia(fetch, wiki.apiUrl, 'nothing matches this')).toEqual([]);
  });

  it('gives up on a wiki whose search continues forever', async () => {
    expect(await searchEncyclopedia(fetch, wiki.apiUrl, 'stuck')).toEqual([]);
    const searches = wiki.requests.filter((q) => kind(q) === 'search').length;
    expect(searches).toBeGreaterThan(1);
    expect(searches).toBeLessThanOrEqual(20);
  });

  it('uses a configured wiki as it is, whatever the language asked for', async () => {
    const articles = await searchEncyclopedia(fetch, wiki.apiUrl, 'heat', { language: 'de', maxPages: 1 });
    expect(articles.map((a) => [a.title, a.language])).toEqual([['Thermal conduction', 'en']]); // the page's own language
    expect(wiki.requests.length).toBeGreaterThan(0);
  });

  it('reports API errors, error statuses, bad input and refused hosts as coded errors', async () => {
    await expect(searchEncyclopedia(fetch, wiki.apiUrl, 'api-failure')).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: 'the encyclopedia refused the query: A database query error has occurred.',
    });
    await expect(
      searchEncyclopedia(fetch, wiki.apiUrl.replace('/w/api.php', '/api.php'), 'heat'),
    ).rejects.toMatchObject({ code: 'FETCH_FAILED', details: { status: 404 } });
    await expect(searchEncyclopedia(fetch, wiki.apiUrl, '   ')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(searchEncyclopedia(fetch, wiki.apiUrl, 'heat', { maxPages: 0 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(searchEncyclopedia(fetch, wiki.apiUrl, 'heat', { language: 'en/../x' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const strict = createGuardedFetch({ ...policy, allowedPrivateHosts: [] });
    await expect(searchEncyclopedia(strict, wiki.apiUrl, 'heat')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });
});

describe('encyclopediaApiUrl', () => {
  it('switches the language only on the default Wikipedia API', () => {
    expect(encyclopediaApiUrl(DEFAULT_ENCYCLOPEDIA_API)).toBe('https://en.wikipedia.org/w/api.php');
    expect(encyclopediaApiUrl(DEFAULT_ENCYCLOPEDIA_API, 'de')).toBe('https://de.wikipedia.org/w/api.php');
    expect(encyclopediaApiUrl('https://EN.wikipedia.org/w/api.php', 'zh-yue')).toBe(
      'https://zh-yue.wikipedia.org/w/api.php',
    );
    expect(encyclopediaApiUrl('https://wiki.intranet.example/api.php', 'de')).toBe(
      'https://wiki.intranet.example/api.php',
    );
    expect(encyclopediaApiUrl('https://fr.wikipedia.org/w/api.php', 'de')).toBe('https://fr.wikipedia.org/w/api.php');
    expect(() => encyclopediaApiUrl('not a url')).toThrow(expect.objectContaining({ code: 'URL_INVALID' }));
    expect(() => encyclopediaApiUrl(DEFAULT_ENCYCLOPEDIA_API, 'DE"')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});

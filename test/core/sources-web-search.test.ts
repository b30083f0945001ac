import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { GuardedFetch, NetPolicy } from '../../server/core/net/types.js';
import { webSearch } from '../../server/core/sources/web-search.js';
import { readerPolicy } from '../helpers/net-policy.js';
import { startJsonDisabledSearx, startSearxServer, type SearxServer } from '../helpers/searx-server.js';

let searx: SearxServer;
let disabled: { url: string; close(): Promise<void> };
let fetch: GuardedFetch;
let policy: NetPolicy;

beforeAll(async () => {
  searx = await startSearxServer();
  disabled = await startJsonDisabledSearx();
  policy = readerPolicy(searx.url, disabled.url);
  fetch = createGuardedFetch(policy);
});
afterAll(async () => {
  await searx.close();
  await disabled.close();
});
beforeEach(() => {
  searx.requests.length = 0;
});

describe('webSearch', () => {
  it('asks GET /search?q=…&format=json and returns the first five usable results, each URL once', async () => {
    const results = await webSearch(fetch, searx.url, '  heat & "transfer"  ');
    expect(searx.requests.map((q) => [q.get('q'), q.get('format')])).toEqual([['heat & "transfer"', 'json']]);
    expect(results).toEqual([
      { title: 'Heat - Example', url: 'https://example.org/heat', snippet: 'Heat is energy in transfer.' },
      { title: 'Conduction explained', url: 'https://example.net/conduction', snippet: '' },
      {
        title: 'http://example.com/radiation',
        url: 'http://example.com/radiation',
        snippet: 'Radiation needs no medium.',
      },
      { title: 'Convection', url: 'https://example.edu/convection', snippet: 'Fluids carry heat.' },
      { title: 'Insulation', url: 'https://example.edu/insulation', snippet: 'Slowing heat flow.' },
    ]);
  });

  it('honours the limit and a base URL with a path prefix', async () => {
    const results = await webSearch(fetch, `${searx.url}/searx`, 'heat', { limit: 2 });
    expect(results.map((r) => r.url)).toEqual(['https://example.org/heat', 'https://example.net/conduction']);
    expect(await webSearch(fetch, `${searx.url}/searx/`, 'heat', { limit: 50 })).toHaveLength(6);
    expect(await webSearch(fetch, searx.url, 'no match')).toEqual([]);
  });

  it("takes the instance's root or its search endpoint, as guides write it", async () => {
    for (const base of [
      `${searx.url}/`,
      `${searx.url}/search`,
      `${searx.url}/search/`,
      `${searx.url}/searx/search`,
      `${searx.url}/search?q=old`,
    ]) {
      searx.requests.length = 0;
      expect(await webSearch(fetch, base, 'heat'), base).toHaveLength(5);
      expect(
        searx.requests.map((q) => [...q.entries()]),
        base,
      ).toEqual([
        [
          ['q', 'heat'],
          ['format', 'json'],
        ],
      ]);
    }
  });

  it('says how to enable JSON when SearxNG refuses it (403)', async () => {
    await expect(webSearch(fetch, disabled.url, 'heat')).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      details: { status: 403 },
      message: expect.stringContaining('search.formats'),
    });
  });

  it('reports error statuses, answers that are not results, bad input and refused hosts as coded errors', async () => {
    await expect(webSearch(fetch, searx.url, 'crash')).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      details: { status: 500 },
    });
    await expect(webSearch(fetch, searx.url, 'not json')).rejects.toMatchObject({ code: 'FETCH_FAILED' });
    await expect(webSearch(fetch, `${searx.url}/elsewhere`, 'heat')).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      details: { status: 404 },
    });
    await expect(webSearch(fetch, searx.url, ' ')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(webSearch(fetch, searx.url, 'heat', { limit: 0 })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(webSearch(fetch, 'searx', 'heat')).rejects.toMatchObject({ code: 'URL_INVALID' });
    const strict = createGuardedFetch({ ...policy, allowedPrivateHosts: [] });
    await expect(webSearch(strict, searx.url, 'heat')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(searx.requests.filter((q) => q.get('q') === 'heat')).toHaveLength(0);
  });
});

/**
 * A SearxNG-compatible search API on loopback: `GET /search?q=...&format=json` (also under the path
 * prefix `/searx/`), answering 403 for any other format as SearxNG does when JSON is not enabled.
 * Its results hold what real ones do: a duplicate URL, a result without a URL, a non-web URL and
 * whitespace in the snippets.
 */
import { listenOnLoopback } from './loopback-server.js';

export const SEARX_RESULTS = [
  {
    url: 'https://example.org/heat',
    title: 'Heat - Example',
    content: '  Heat is energy\n in transfer.  ',
    engine: 'duckduckgo',
    score: 3,
  },
  {
    url: 'https://example.org/heat',
    title: 'Heat (duplicate from another engine)',
    content: 'dup',
    engine: 'brave',
    score: 2,
  },
  { title: 'No URL at all', content: 'broken result', engine: 'x' },
  { url: 'javascript:alert(1)', title: 'Script link', content: 'not a web page', engine: 'x' },
  { url: 'https://example.net/conduction', title: 'Conduction explained', engine: 'bing', score: 1.5 },
  { url: 'http://example.com/radiation', title: '', content: 'Radiation needs no medium.', engine: 'bing', score: 1.2 },
  {
    url: 'https://example.edu/convection',
    title: 'Convection',
    content: 'Fluids carry heat.',
    engine: 'google',
    score: 1,
  },
  {
    url: 'https://example.edu/insulation',
    title: 'Insulation',
    content: 'Slowing heat flow.',
    engine: 'google',
    score: 0.9,
  },
  {
    url: 'https://example.edu/heat-pumps',
    title: 'Heat pumps',
    content: 'Moving heat uphill.',
    engine: 'google',
    score: 0.8,
  },
];

export interface SearxServer {
  url: string;
  requests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startSearxServer(): Promise<SearxServer> {
  const requests: URLSearchParams[] = [];
  const server = await listenOnLoopback(
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://loopback');
      if (url.pathname !== '/search' && url.pathname !== '/searx/search') return void res.writeHead(404).end();
      const q = url.searchParams;
      requests.push(q);
      if (q.get('format') !== 'json')
        return void res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>');
      const query = q.get('q') ?? '';
      if (query === 'crash') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
      if (query === 'not json')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      const results = /heat/i.test(query) ? SEARX_RESULTS : [];
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ query, number_of_results: results.length, results, answers: [], suggestions: [] }));
    },
    async () => undefined,
  );
  return { ...server, requests };
}

/** A server that answers every search 403, as SearxNG does with `json` missing from `search.formats`. */
export async function startJsonDisabledSearx(): Promise<{ url: string; close(): Promise<void> }> {
  return listenOnLoopback(
    (_req, res) => void res.writeHead(403, { 'content-type': 'text/html' }).end('<h1>403 Forbidden</h1>'),
    async () => undefined,
  );
}

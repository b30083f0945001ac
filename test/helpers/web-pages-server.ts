/**
 * A small web site on loopback for the link reader: an article page wrapped in navigation, ads and a
 * footer (the ad changes on every request, as real ones do), documents of each format served with the
 * Content-Types servers really send, redirects, errors and bodies too large to read.
 */
import { makeDocx, TINY_PNG } from './make-docx.js';
import { makeStructuredPdf } from './make-pdf.js';
import { listenOnLoopback } from './loopback-server.js';

/** What the article page holds, for assertions. */
export const ARTICLE = {
  title: 'Heat transfer',
  pageTitle: 'Heat transfer | Thermo Notes',
  headings: ['Heat transfer', 'Conduction', 'Measured conductivities', 'A small model'],
  listItems: ['Metals conduct heat well.', 'Still air conducts heat poorly.'],
  table: [
    ['Material', 'k (W/m·K)'],
    ['Copper', '401'],
    ['Glass', '1.0'],
  ],
  code: 'def heat_flow(k, area, dT, dx):\n    return k * area * dT / dx',
  /** Text of the boilerplate around the article: none of it may reach the document. */
  boilerplate: [
    'About us',
    'Subscribe to our newsletter',
    'Sponsored offer',
    'Related posts',
    'All rights reserved',
    'We use cookies',
  ],
};

const para = (n: number): string =>
  `<p>Heat moves from a warmer body to a cooler one by conduction, convection and radiation; this ` +
  `paragraph number ${n} explains how engineers estimate the rate of that flow in walls, pipes and chips.</p>`;

function articlePage(requestNo: number): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${ARTICLE.pageTitle}</title>
<script>window.analytics = { id: ${requestNo} };</script><style>.ad { color: red }</style></head>
<body>
<div class="cookie-banner">We use cookies to improve your experience. <button>Accept</button></div>
<header class="site-header"><nav class="menu"><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li>
<li><a href="/topics">Topics</a></li><li><a href="/contact">Contact</a></li></ul></nav></header>
<div class="ad banner-ad sponsored">Sponsored offer ${requestNo}: cheap radiators, click now!</div>
<main><article class="post">
<h1>${ARTICLE.title}</h1>
${para(1)}${para(2)}
<h2>Conduction</h2>
${para(3)}
<ul><li>${ARTICLE.listItems[0]}</li><li>${ARTICLE.listItems[1]}</li></ul>
${para(4)}
<h2>Measured conductivities</h2>
<table><thead><tr><th>Material</th><th>k (W/m·K)</th></tr></thead>
<tbody><tr><td>Copper</td><td>401</td></tr><tr><td>Glass</td><td>1.0</td></tr></tbody></table>
${para(5)}
<h3>A small model</h3>
<pre><code class="language-python">${ARTICLE.code}</code></pre>
${para(6)}
<p>See the <a href="/articles/convection">next article</a> for convection.</p>
</article></main>
<aside class="sidebar"><h3>Related posts</h3><ul><li><a href="/a">Radiators</a></li><li><a href="/b">Heat pumps</a></li></ul>
<div class="newsletter">Subscribe to our newsletter</div></aside>
<footer class="site-footer"><p>© 2026 Thermo Notes. All rights reserved.</p></footer>
</body></html>`;
}

/** A client-rendered page: nothing to read until scripts run. */
const APP_SHELL =
  '<!DOCTYPE html><html><head><title>Loading…</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>';

/** "café crème" and "naïve" in windows-1252, served as ISO-8859-1 without a <meta charset>. */
const LATIN1_PAGE = Uint8Array.from(
  `<html><head><title>Caf\xe9 notes</title></head><body><article><h1>Caf\xe9 notes</h1>` +
    `<p>${'A caf\xe9 cr\xe8me is not a na\xefve drink; it is espresso with a generous amount of hot cream added. '.repeat(4)}</p></article></body></html>`,
  (c) => c.charCodeAt(0),
);

/** "привет мир" in KOI8-R: only the header says which encoding this is. */
const KOI8_TEXT = Uint8Array.from([0xd0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4, 0x20, 0xcd, 0xc9, 0xd2, 0x0a]);

const README = '# Project notes\n\nSome **notes** about the project.\n\n## Install\n\n```sh\nnpm ci\n```\n';

export interface WebPagesServer {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** The size of the huge bodies, in bytes. */
  hugeBytes: number;
  /** Resolves once the site has sent the whole answer to a request for `path`. */
  sent(path: string): Promise<void>;
  close(): Promise<void>;
}

/** Every route: [status, headers, body]. */
type Route = () => [number, Record<string, string>, Uint8Array | string];

export async function startWebPagesServer(): Promise<WebPagesServer> {
  const pdf = await makeStructuredPdf();
  const docx = makeDocx([
    { kind: 'heading', level: 1, text: 'Quarterly report' },
    { kind: 'para', text: 'Revenue grew.' },
  ]);
  const hugeBytes = 3 << 20;
  const huge = new TextEncoder().encode(`<html><body><p>${'x'.repeat(hugeBytes)}</p></body></html>`);
  // More elements than Readability is given (4 a row): the page is kept whole.
  const bigPage = `<html><head><title>Catalogue</title></head><body><nav><a href="/">Home</a></nav><main>${Array.from(
    { length: 8000 },
    (_, i) => `<div class="row"><h3>Item ${i}</h3><p>About item ${i}, <a href="/i/${i}">more</a>.</p></div>`,
  ).join('')}</main></body></html>`;
  // Under Readability's element cap (3 a row), so it does score this one: ~1 s of one core.
  const linkList = `<html><head><title>Index of notes</title></head><body><main><article><h1>Index of notes</h1><p>${ARTICLE.listItems.join(' ')} These notes list every page of the site below.</p><ul>${Array.from(
    { length: 9000 },
    (_, i) => `<li><a href="/n/${i}">note ${i}</a></li>`,
  ).join('')}</ul></article></main></body></html>`;
  const requests: string[] = [];
  const answered = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  const answerOf = (path: string) => {
    let entry = answered.get(path);
    if (!entry) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      answered.set(path, (entry = { promise, resolve }));
    }
    return entry;
  };
  let articleRequests = 0;
  const html = { 'content-type': 'text/html; charset=utf-8' };
  const routes: Record<string, Route> = {
    '/articles/heat-transfer': () => [200, html, articlePage(++articleRequests)],
    '/old/heat': () => [301, { location: '/moved/heat' }, ''],
    '/moved/heat': () => [302, { location: '/articles/heat-transfer' }, ''],
    '/loop': () => [302, { location: '/loop' }, ''],
    '/missing': () => [404, html, '<html><body><h1>Not found</h1></body></html>'],
    '/broken': () => [500, { 'content-type': 'text/plain' }, 'internal error'],
    '/papers/structured': () => [200, { 'content-type': 'application/octet-stream' }, pdf],
    '/download': () => [
      200,
      { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="Annual report 2025.pdf"' },
      pdf,
    ],
    '/fake.pdf': () => [200, { 'content-type': 'application/pdf' }, articlePage(0)],
    '/report': () => [
      200,
      { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      docx,
    ],
    '/scan.png': () => [200, { 'content-type': 'image/png' }, TINY_PNG],
    '/anim.gif': () => [
      200,
      { 'content-type': 'image/gif' },
      Uint8Array.from([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([1, 0, 1, 0, 0, 0, 0])),
    ],
    '/api/data': () => [
      200,
      { 'content-type': 'application/json' },
      '{"rows": [1, 2, 3], "note": "plain text to a sniffer"}',
    ],
    '/docs/README.md': () => [200, { 'content-type': 'text/plain; charset=utf-8' }, README],
    '/notes/privet': () => [200, { 'content-type': 'text/plain; charset=koi8-r' }, KOI8_TEXT],
    '/cafe': () => [200, { 'content-type': 'text/html; charset=iso-8859-1' }, LATIN1_PAGE],
    '/app': () => [200, html, APP_SHELL],
    '/empty': () => [200, html, ''],
    '/huge': () => [200, html, huge],
    '/catalogue': () => [200, html, bigPage],
    '/link-list': () => [200, html, linkList],
  };
  const server = await listenOnLoopback(
    (req, res) => {
      const path = new URL(req.url ?? '/', 'http://loopback').pathname;
      requests.push(path);
      res.once('finish', () => answerOf(path).resolve());
      if (path === '/huge-stream') {
        // No Content-Length: the limit must be enforced while reading, not from the header.
        res.writeHead(200, { 'content-type': 'text/html' });
        const chunk = '<p>' + 'y'.repeat(64 * 1024) + '</p>';
        let sent = 0;
        const pump = (): void => {
          while (sent < hugeBytes) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        return pump();
      }
      const route = routes[path];
      if (!route) return void res.writeHead(404).end();
      const [status, headers, body] = route();
      res.writeHead(status, headers).end(body);
    },
    async () => undefined,
  );
  return { ...server, requests, hugeBytes, sent: (path) => answerOf(path).promise };
}

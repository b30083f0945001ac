import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../server/core/errors.js';
import { extractHtml } from '../../server/core/extract/flow/html.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { GuardedFetch, NetPolicy } from '../../server/core/net/types.js';
import { linkFileName } from '../../server/core/sources/link-format.js';
import { readLink } from '../../server/core/sources/link-reader.js';
import { readablePage } from '../../server/core/sources/readable-html.js';
import { TINY_PNG } from '../helpers/make-docx.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { readerPolicy } from '../helpers/net-policy.js';
import { ARTICLE, startWebPagesServer, type WebPagesServer } from '../helpers/web-pages-server.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const clock = () => new Date(Date.UTC(2026, 4, 1, 12, 0, 0));

let site: WebPagesServer;
let fetch: GuardedFetch;
let policy: NetPolicy;

beforeAll(async () => {
  site = await startWebPagesServer();
  policy = readerPolicy(site.url);
  fetch = createGuardedFetch(policy);
});
afterAll(() => site.close());

describe('readLink: HTML pages', () => {
  it('keeps the article with its structure and drops the navigation, ads, sidebar and footer', async () => {
    const url = `${site.url}/articles/heat-transfer`;
    const doc = await readLink(fetch, url, { clock });
    expect(doc).toMatchObject({
      url,
      final_url: url,
      fetched_at: '2026-05-01T12:00:00.000Z',
      content_type: 'text/html; charset=utf-8',
      file_name: 'heat-transfer.html',
      title: ARTICLE.title,
    });
    expect(doc.sha256).toBe(sha256(doc.bytes));
    const html = text(doc.bytes);
    for (const junk of ARTICLE.boilerplate) expect(html).not.toContain(junk);
    expect(html).not.toContain('<script');

    // What Lectern's own HTML extractor reads from it: the structure is there.
    const { blocks, title } = extractHtml(html);
    expect(title).toBe(ARTICLE.title);
    const headings = blocks.filter((b) => b.type === 'heading');
    expect(headings.map((h) => h.text)).toEqual(ARTICLE.headings);
    expect(headings[0]?.heading_level).toBe(1);
    expect(headings.slice(1).map((h) => h.heading_level)).toEqual([2, 2, 3]);
    expect(blocks.filter((b) => b.type === 'list_item').map((b) => b.text)).toEqual(ARTICLE.listItems);
    expect(blocks.find((b) => b.type === 'table')?.table?.rows).toEqual(ARTICLE.table);
    expect(blocks.find((b) => b.type === 'code')).toMatchObject({ text: ARTICLE.code, language: 'python' });
    expect(blocks.filter((b) => b.type === 'paragraph' && b.text.startsWith('Heat moves'))).toHaveLength(6);
    for (const b of blocks) for (const junk of ARTICLE.boilerplate) expect(b.text).not.toContain(junk);
    // Relative links are made absolute against the page, so they still lead somewhere once stored.
    expect(html).toContain(`href="${site.url}/articles/convection"`);
  });

  it('gives the same bytes and sha256 on every read although the page around the article changes', async () => {
    const url = `${site.url}/articles/heat-transfer`;
    const before = site.requests.length;
    const a = await readLink(fetch, url);
    const b = await readLink(fetch, url);
    expect(site.requests.length).toBe(before + 2); // both really fetched (the ad differs between them)
    expect(b.sha256).toBe(a.sha256);
    expect(b.bytes).toEqual(a.bytes);
  });

  it('follows redirects and reports the URL that answered', async () => {
    const url = `${site.url}/old/heat`;
    const doc = await readLink(fetch, url);
    expect(doc.url).toBe(url);
    expect(doc.final_url).toBe(`${site.url}/articles/heat-transfer`);
    expect(doc.file_name).toBe('heat-transfer.html');
    expect(doc.sha256).toBe((await readLink(fetch, doc.final_url)).sha256);
  });

  it('keeps a page too large for Readability whole rather than failing or stalling on it', async () => {
    const doc = await readLink(fetch, `${site.url}/catalogue`);
    expect(doc.title).toBe('Catalogue');
    const { blocks } = extractHtml(text(doc.bytes));
    expect(blocks.filter((b) => b.type === 'heading' && b.heading_level === 3)).toHaveLength(8000);
    expect(blocks.at(-1)?.text).toBe('About item 7999, more.');
    // It was kept whole (its navigation with it), not handed to Readability; a normal page is reduced.
    const big = readablePage(text(await (await fetch(`${site.url}/catalogue`)).bytes()), `${site.url}/catalogue`);
    expect(big.reduced).toBe(false);
    expect(big.html).toContain('href="/"');
    const article = readablePage(text(await (await fetch(`${site.url}/articles/heat-transfer`)).bytes()), site.url);
    expect(article.reduced).toBe(true);
  });

  it('decodes a page by the charset its header names', async () => {
    const doc = await readLink(fetch, `${site.url}/cafe`);
    expect(doc.title).toBe('Café notes');
    const html = text(doc.bytes);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain('A café crème is not a naïve drink');
  });
});

describe('readLink: other formats are passed on as they are', () => {
  it('a PDF served as application/octet-stream, recognised by its content', async () => {
    const pdf = new Uint8Array(await makeStructuredPdf());
    const doc = await readLink(fetch, `${site.url}/papers/structured`);
    expect(doc).toMatchObject({ content_type: 'application/pdf', file_name: 'structured.pdf', sha256: sha256(pdf) });
    expect(new Uint8Array(doc.bytes)).toEqual(pdf);
    expect(doc.title).toBeUndefined();
  });

  it('names a download as its Content-Disposition says', async () => {
    const doc = await readLink(fetch, `${site.url}/download?id=7`);
    expect(doc).toMatchObject({ content_type: 'application/pdf', file_name: 'Annual report 2025.pdf' });
  });

  it('a DOCX and a PNG scan', async () => {
    const docx = await readLink(fetch, `${site.url}/report`);
    expect(docx.content_type).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docx.file_name).toBe('report.docx');
    const png = await readLink(fetch, `${site.url}/scan.png`);
    expect(png).toMatchObject({ content_type: 'image/png', file_name: 'scan.png', sha256: sha256(TINY_PNG) });
    expect(new Uint8Array(png.bytes)).toEqual(TINY_PNG);
  });

  it('Markdown served as text/plain is Markdown (content and name agree)', async () => {
    const doc = await readLink(fetch, `${site.url}/docs/README.md`);
    expect(doc).toMatchObject({ content_type: 'text/markdown; charset=utf-8', file_name: 'README.md' });
    expect(text(doc.bytes)).toMatch(/^# Project notes\n/);
  });

  it('plain text in a charset only the header names is re-encoded as UTF-8', async () => {
    const doc = await readLink(fetch, `${site.url}/notes/privet`);
    expect(doc).toMatchObject({ content_type: 'text/plain; charset=utf-8', file_name: 'privet.txt' });
    expect(text(doc.bytes)).toBe('привет мир\n');
  });
});

describe('readLink: failures are coded errors', () => {
  const fails = (path: string, code: string, opts = {}) =>
    expect(readLink(fetch, `${site.url}${path}`, opts)).rejects.toMatchObject({ code });

  it('a remote error status is FETCH_FAILED with the status', async () => {
    await expect(readLink(fetch, `${site.url}/missing`)).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      message: 'the link answered 404 Not Found',
      details: { status: 404 },
    });
    await expect(readLink(fetch, `${site.url}/broken`)).rejects.toMatchObject({
      code: 'FETCH_FAILED',
      details: { status: 500 },
    });
    await fails('/loop', 'FETCH_FAILED'); // too many redirects, from the guarded fetch
  });

  it('content that is no document Lectern reads is UNSUPPORTED_MEDIA_TYPE', async () => {
    await expect(readLink(fetch, `${site.url}/api/data`)).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      details: { content_type: 'application/json' },
    });
    await fails('/anim.gif', 'UNSUPPORTED_MEDIA_TYPE');
    await fails('/fake.pdf', 'UNSUPPORTED_MEDIA_TYPE'); // an HTML page labelled application/pdf
  });

  it('an empty body, or a page with nothing to read, is EMPTY_CONTENT', async () => {
    await fails('/empty', 'EMPTY_CONTENT');
    await fails('/app', 'EMPTY_CONTENT');
  });

  it('a body past the byte limit is RESPONSE_TOO_LARGE, declared or not', async () => {
    await fails('/huge', 'RESPONSE_TOO_LARGE', { maxBytes: 1 << 20 });
    await fails('/huge-stream', 'RESPONSE_TOO_LARGE', { maxBytes: 1 << 20 });
    const small = createGuardedFetch({ ...policy, maxBytes: 1 << 20 });
    await expect(readLink(small, `${site.url}/huge-stream`)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    // Within the limit the same page is read (and has text).
    expect((await readLink(fetch, `${site.url}/huge`)).bytes.length).toBeGreaterThan(site.hugeBytes);
  });

  it('goes through the guard: loopback not allowed by the policy is refused before any request', async () => {
    const strict = createGuardedFetch({ ...policy, allowedPrivateHosts: [] });
    const before = site.requests.length;
    await expect(readLink(strict, `${site.url}/articles/heat-transfer`)).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    await expect(readLink(strict, 'ftp://example.org/file.pdf')).rejects.toMatchObject({ code: 'URL_INVALID' });
    expect(site.requests.length).toBe(before);
  });

  it('every code used is in the catalogue with its status', () => {
    expect([
      statusOf({ code: 'EMPTY_CONTENT' }),
      statusOf({ code: 'UNSUPPORTED_MEDIA_TYPE' }),
      statusOf({ code: 'FETCH_FAILED' }),
    ]).toEqual([422, 415, 502]);
  });
});

describe('linkFileName', () => {
  it('uses the title for pages whose path says nothing, the host for a bare site, and fixes the extension', () => {
    expect(
      linkFileName({
        url: 'https://x.test/blog/index.php?p=4',
        disposition: null,
        title: 'My post',
        extension: '.html',
      }),
    ).toBe('My post.html');
    expect(linkFileName({ url: 'https://x.test/', disposition: null, title: undefined, extension: '.html' })).toBe(
      'x.test.html',
    );
    expect(
      linkFileName({ url: 'https://x.test/files/data.bin', disposition: null, title: undefined, extension: '.pdf' }),
    ).toBe('data.pdf');
    expect(linkFileName({ url: 'https://x.test/a/v1.2', disposition: null, title: undefined, extension: '.txt' })).toBe(
      'v1.2.txt',
    );
    expect(
      linkFileName({
        url: 'https://x.test/a',
        disposition: "attachment; filename*=UTF-8''r%C3%A9sum%C3%A9%2F2026.pdf",
        title: undefined,
        extension: '.pdf',
      }),
    ).toBe('résumé_2026.pdf');
  });
});

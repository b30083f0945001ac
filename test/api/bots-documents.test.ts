import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, listAll, startServer, type TestServer } from '../helpers/app.js';
import { topicsRoot } from '../helpers/bot-flow.js';
import { TEST_MODEL, waitForIngest, startServerWithModel } from '../helpers/embed-flow.js';
import { type RedirectToPrivate, startRedirectToPrivate } from '../helpers/loopback-server.js';
import { STRUCTURED_PDF } from '../helpers/make-pdf.js';
import { startMediaWikiServer, WIKI_PAGES, type MediaWikiServer } from '../helpers/mediawiki-server.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { startWebPagesServer, type WebPagesServer } from '../helpers/web-pages-server.js';

// A bot's documents through HTTP, against the real server (MiniLM, the pool's extractors) and local servers
// that speak each remote protocol: links of every kind read by their own extractors, the folder cap,
// the encyclopedia's defaults, build as a catch-up, paging and counts, and bodies that break a route's schema.

let server: TestServer;
let web: WebPagesServer;
let wiki: MediaWikiServer;
let root = '';
const MAX_FOLDER_FILES = 3;
/** A listener the policy does not allow, and an allowed site that redirects to it. */
let toPrivate: RedirectToPrivate;
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  [web, wiki] = await Promise.all([startWebPagesServer(), startMediaWikiServer()]);
  toPrivate = await startRedirectToPrivate();
  root = topicsRoot('lectern-bot-docs-');
  server = await startServerWithModel({
    document_roots: [root],
    max_folder_files: MAX_FOLDER_FILES,
    allowed_private_hosts: [hostOf(web.url), hostOf(wiki.apiUrl), hostOf(toPrivate.redirector.url)],
    encyclopedia_url: wiki.apiUrl,
  });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([web?.close(), wiki?.close(), toPrivate?.close()]);
});

const newBot = async (body: Record<string, unknown> = {}) =>
  (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' }, ...body } })))
    .bot_id as string;
const vectorstore = async (botId: string, query: string, top_k = 3) =>
  json(await server.call('POST', `/bots/${botId}/vectorstore`, { json: { query, top_k } }));
const addPath = async (botId: string, path: string) =>
  json(await server.call('POST', `/bots/${botId}/documents/path`, { json: { path } }));

describe('links read by their own extractors', () => {
  it('adds a PDF served as octet-stream and a DOCX by link: each read by its extractor, searchable, with its fetch time', async () => {
    const botId = await newBot();
    const before = Date.now();
    const res = await server.call('POST', `/bots/${botId}/documents/link`, {
      json: { links: [`${web.url}/papers/structured`, `${web.url}/report`] },
    });
    expect(res.status).toBe(200);
    const { documents } = await json(res);
    expect(documents.map((d: { status: string }) => d.status)).toEqual(['pending', 'pending']);
    const [pdfJob, docxJob] = [
      await waitForIngest(server, documents[0].job_id),
      await waitForIngest(server, documents[1].job_id),
    ];
    expect(pdfJob).toMatchObject({
      format: 'pdf',
      ingest_status: 'success',
      source: { kind: 'link', url: `${web.url}/papers/structured` },
    });
    expect(docxJob).toMatchObject({
      format: 'docx',
      ingest_status: 'success',
      source: { kind: 'link', url: `${web.url}/report` },
    });
    for (const j of [pdfJob, docxJob]) {
      const fetched = Date.parse(j.source.fetched_at);
      expect(j.source.fetched_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(fetched).toBeGreaterThanOrEqual(before - 1000);
      expect(fetched).toBeLessThanOrEqual(Date.now());
    }
    // The PDF's text, from its second page: the PDF extractor read it (raw bytes would have no pages).
    const method = STRUCTURED_PDF.paragraphs.find((p) => p.page === 2)!.text;
    const pdfHit = (await vectorstore(botId, method)).documents[0];
    expect(pdfHit.content).toContain('Each page is read once');
    expect(pdfHit.metadata).toMatchObject({
      job_id: pdfJob.job_id,
      source: `${web.url}/papers/structured`,
      page_numbers: [2],
    });
    const docxHit = (await vectorstore(botId, 'Quarterly report: revenue grew', 10)).documents.find(
      (d: { metadata: { job_id: string } }) => d.metadata.job_id === docxJob.job_id,
    );
    expect(docxHit.content).toContain('Revenue grew.');
    expect(docxHit.content).not.toContain('word/document.xml');
    expect(docxHit.metadata).toMatchObject({ job_id: docxJob.job_id, source: `${web.url}/report` });
  });

  it('reduces a page to its article in a worker thread: the server answers other requests meanwhile', async () => {
    const botId = await newBot();
    let pending = true;
    // For review: the page waits for a person instead of being embedded by the rest of the file's tests.
    const adding = server
      .call('POST', `/bots/${botId}/documents/link`, { json: { links: [`${web.url}/link-list`], review: true } })
      .finally(() => (pending = false));
    await web.sent('/link-list');
    // Readability scores the page for about a second of one core; on the HTTP thread no request would be
    // answered until it ends.
    let answered = 0;
    while (pending) {
      expect((await server.call('GET', '/health')).status).toBe(200);
      if (pending) answered++;
    }
    const res = await adding;
    expect(res.status).toBe(200);
    const [doc] = (await json(res)).documents;
    expect(doc).toMatchObject({ status: 'pending', url: `${web.url}/link-list` });
    expect(answered).toBeGreaterThan(10);
    const job = await server.waitFor(doc.job_id);
    expect(job).toMatchObject({ status: 'ready_for_review', source: { kind: 'link', title: 'Index of notes' } });
  });

  it('answers 502 LINK_FETCH_FAILED listing every link with its reason when none could be read, adding nothing', async () => {
    const botId = await newBot();
    const links = [`${toPrivate.redirector.url}/go`, `${web.url}/missing`, `${web.url}/loop`, `${web.url}/anim.gif`];
    const res = await server.call('POST', `/bots/${botId}/documents/link`, { json: { links } });
    expect(res.status).toBe(502);
    const { error } = await json(res);
    expect(error.code).toBe('LINK_FETCH_FAILED');
    expect(error.details.documents.map((d: { url: string }) => d.url)).toEqual(links);
    const codes = error.details.documents.map((d: { error: { code: string } }) => d.error.code);
    expect(codes).toEqual(['URL_NOT_ALLOWED', 'FETCH_FAILED', 'FETCH_FAILED', 'UNSUPPORTED_MEDIA_TYPE']);
    for (const d of error.details.documents) {
      expect(d).toMatchObject({ status: 'failed', job_id: null });
      expect(d.error.message.length).toBeGreaterThan(5);
      expect(error.message).toContain(d.url);
    }
    // The 404 and the redirect loop say which they are.
    expect(error.details.documents[1].error.message).toMatch(/404/);
    expect(error.details.documents[2].error.message).toMatch(/redirect/i);
    expect(toPrivate.privateListener.connections()).toBe(0);
    expect(await json(await server.call('GET', `/bots/${botId}`))).toMatchObject({ documents: 0, document_list: [] });
  });
});

describe('folders and the encyclopedia', () => {
  it('adds at most max_folder_files of a folder, the first in name order, and says the rest were left', async () => {
    const folder = join(root, 'big');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    const names = ['alpha.md', 'beta.md', 'delta.md', 'gamma.md'];
    for (const [i, n] of names.entries())
      writeFileSync(join(folder, n), `# Note ${i}\n\nThe ${n.slice(0, -3)} note is number ${i} of the big folder.\n`);
    writeFileSync(join(folder, 'sub', 'omega.md'), '# Omega\n\nThe omega note lives in a subfolder.\n');
    const botId = await newBot();
    const res = await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: folder } });
    expect(res.status).toBe(200);
    const added = await json(res);
    expect(added.truncated).toBe(true);
    expect(added.job_ids).toHaveLength(MAX_FOLDER_FILES);
    expect(added.documents.map((d: { source: string }) => d.source)).toEqual(
      ['alpha.md', 'beta.md', 'delta.md'].map((n) => join(folder, n)),
    );
    expect((await json(await server.call('GET', `/bots/${botId}`))).documents).toBe(MAX_FOLDER_FILES);
    // A folder within the cap is added whole, and says so.
    const small = await addPath(await newBot(), join(folder, 'sub'));
    expect(small).toMatchObject({ truncated: false, job_ids: [expect.any(String)] });
  });

  it('adds max_pages 2 articles when none is asked for, whole; more when asked; any language on a configured wiki', async () => {
    const botId = await newBot();
    const res = await server.call('POST', `/bots/${botId}/documents/query`, { json: { search_query: 'heat' } });
    expect(res.status).toBe(200);
    const { documents } = await json(res);
    expect(documents.map((d: { title: string }) => d.title)).toEqual(['Thermal conduction', 'Heat transfer']);
    // The long article arrives in parts: all of it is in the document, its last sentence too.
    const long = WIKI_PAGES.find((p) => p.title === 'Thermal conduction')!;
    const conduction = documents[0];
    expect((await waitForIngest(server, conduction.job_id)).ingest_status).toBe('success');
    const text = (await listAll(server, `/jobs/${conduction.job_id}/blocks`)).map((b) => b.text).join('\n');
    const lastLine = long.extract.trim().split('\n').at(-1)!;
    expect(text).toContain(lastLine.slice(0, 60));
    expect(text.length).toBeGreaterThan(long.extract.length * 0.9);

    const three = await json(
      await server.call('POST', `/bots/${await newBot()}/documents/query`, {
        json: { search_query: 'heat', max_pages: 3 },
      }),
    );
    expect(three.documents).toHaveLength(3);

    // A configured wiki is asked whatever language is named (its other languages live where only its owner knows).
    const asked = wiki.requests.length;
    const german = await server.call('POST', `/bots/${await newBot()}/documents/query`, {
      json: { search_query: 'heat', language: 'de' },
    });
    expect(german.status).toBe(200);
    expect((await json(german)).documents.map((d: { title: string }) => d.title)).toEqual([
      'Thermal conduction',
      'Heat transfer',
    ]);
    expect(wiki.requests.length).toBeGreaterThan(asked);
    // A language that is no language code is refused before anything is sent.
    const sent = wiki.requests.length;
    const bad = await server.call('POST', `/bots/${botId}/documents/query`, {
      json: { search_query: 'heat', language: 'EN!' },
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('VALIDATION_FAILED');
    expect(wiki.requests.length).toBe(sent);
  });
});

describe('bots: build, paging, counts and bodies', () => {
  it('build makes every finished document searchable, a second build changes nothing, and a held one stays held', async () => {
    // A server without the bot's embedding model: its documents are read but cannot be embedded yet.
    const { minilm } = await ensureTestModels();
    const bare = await startServer({ settings: { embedding_model: TEST_MODEL, document_roots: [root, minilm.dir] } });
    try {
      const botId = (await json(await bare.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } })))
        .bot_id;
      writeFileSync(join(root, 'held.md'), '# Held\n\nA held note about lighthouse lamps waits for a person.\n');
      writeFileSync(join(root, 'alpha.md'), '# Alpha\n\nThe alpha note is the first of the build notes.\n');
      const ids: string[] = [];
      for (const path of [join(root, 'topics.md'), join(root, 'alpha.md')])
        ids.push((await json(await bare.call('POST', `/bots/${botId}/documents/path`, { json: { path } }))).job_id);
      const held = (
        await json(
          await bare.call('POST', `/bots/${botId}/documents/path`, {
            json: { path: join(root, 'held.md'), review: true },
          }),
        )
      ).job_id;
      for (const id of ids)
        expect(await waitForIngest(bare, id)).toMatchObject({
          status: 'finalized',
          ingest_status: 'failed',
          error: { code: 'MODEL_NOT_INSTALLED' },
        });
      expect(await bare.waitFor(held)).toMatchObject({ status: 'ready_for_review', ingest_status: 'pending' });
      const installed = await bare.call('POST', `/models/${TEST_MODEL}/import`, { json: { path: minilm.dir } });
      expect(await json(installed)).toMatchObject({ installed: true });

      expect(await json(await bare.call('POST', `/bots/${botId}/build`, { json: {} }))).toEqual({
        status: 'ok',
        bot_id: botId,
      });
      const after = await Promise.all(ids.map(async (id) => json(await bare.call('GET', `/jobs/${id}`))));
      for (const j of after) expect(j).toMatchObject({ status: 'indexed', ingest_status: 'success', error: null });
      const vstore = async (query: string) =>
        json(await bare.call('POST', `/bots/${botId}/vectorstore`, { json: { query, top_k: 10 } }));
      expect((await vstore('How does bread dough rise?')).documents[0].content).toContain('Knead the dough');
      expect((await vstore('the alpha note, first of the build notes')).documents[0].metadata.job_id).toBe(ids[1]);
      const everything = (await vstore('note')).documents;

      // Again: nothing is embedded twice, and the document held for review is not pushed past its reviewer.
      expect(await json(await bare.call('POST', `/bots/${botId}/build`, { json: {} }))).toEqual({
        status: 'ok',
        bot_id: botId,
      });
      const again = await Promise.all(ids.map(async (id) => json(await bare.call('GET', `/jobs/${id}`))));
      expect(again.map((j) => j.index)).toEqual(after.map((j) => j.index));
      expect(again.every((j) => j.index?.vectors > 0)).toBe(true);
      expect((await vstore('note')).documents).toEqual(everything);
      expect(new Set(everything.map((d: { metadata: { chunk_id: string } }) => d.metadata.chunk_id)).size).toBe(
        everything.length,
      );
      expect(await json(await bare.call('GET', `/jobs/${held}`))).toMatchObject({
        status: 'ready_for_review',
        ingest_status: 'pending',
      });
      expect(
        (await vstore('lighthouse lamps')).documents.map((d: { metadata: { job_id: string } }) => d.metadata.job_id),
      ).not.toContain(held);
    } finally {
      await bare.close();
    }
  });

  it('refuses tools as it refuses agent mode, changing nothing', async () => {
    const botId = await newBot({ prompt_template: 'Keep me.' });
    for (const body of [
      { tools: [{ type: 'function', function: { name: 'calculator' } }], prompt_template: 'Changed.' },
      { tools: ['web_search'] },
    ]) {
      const res = await server.call('POST', `/bots/${botId}/build`, { json: body });
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe('NOT_SUPPORTED');
    }
    expect((await json(await server.call('GET', `/bots/${botId}`))).prompt_template).toBe('Keep me.');
    // No tools at all is what every client sends: fine.
    expect((await server.call('POST', `/bots/${botId}/build`, { json: { tools: [] } })).status).toBe(200);
  });

  it("pages through GET /bots with limit and skip, and counts each bot's documents and chats", async () => {
    const mine = [await newBot({ name: 'page-a' }), await newBot({ name: 'page-b' }), await newBot({ name: 'page-c' })];
    const added = await addPath(mine[0]!, join(root, 'topics.md'));
    await waitForIngest(server, added.job_id);
    for (let i = 0; i < 2; i++) await server.call('POST', `/bots/${mine[0]}/chats`);
    const first = await json(await server.call('GET', '/bots?limit=2&skip=0'));
    expect(first.items).toHaveLength(2);
    const total = first.total as number;
    expect(total).toBeGreaterThanOrEqual(3);
    const seen: any[] = [];
    for (let skip = 0; skip < total; skip += 2) {
      const page = await json(await server.call('GET', `/bots?limit=2&skip=${skip}`));
      expect(page.total).toBe(total);
      expect(page.items.length).toBe(Math.min(2, total - skip));
      seen.push(...page.items);
    }
    expect(new Set(seen.map((b) => b.bot_id)).size).toBe(total);
    for (const id of mine) expect(seen.map((b) => b.bot_id)).toContain(id);
    // Newest first.
    expect(seen.map((b) => b.created_at)).toEqual([...seen.map((b) => b.created_at)].sort().reverse());
    expect((await json(await server.call(`GET`, `/bots?limit=2&skip=${total}`))).items).toEqual([]);
    expect(seen.find((b) => b.bot_id === mine[0])).toMatchObject({ name: 'page-a', documents: 1, chats: 2 });
    expect(seen.find((b) => b.bot_id === mine[1])).toMatchObject({ name: 'page-b', documents: 0, chats: 0 });
    const detail = await json(await server.call('GET', `/bots/${mine[0]}`));
    expect(detail).toMatchObject({
      bot_id: mine[0],
      documents: 1,
      chats: 2,
      document_list: [{ job_id: added.job_id, ingest_status: 'success' }],
    });
    for (const bad of ['limit=0', 'limit=abc', 'skip=-1'])
      expect((await server.call('GET', `/bots?${bad}`)).status, bad).toBe(400);
  });

  it("answers 400 VALIDATION_FAILED to JSON bodies that break a route's schema, and keeps nothing of them", async () => {
    const botId = await newBot();
    const { total } = await json(await server.call('GET', '/bots'));
    const cases: [string, string, unknown][] = [
      ['POST', '/bots', { llm: { provider: 'no-such-provider' } }],
      ['POST', '/bots', { top_k: 0 }],
      ['POST', '/bots', { top_k: 'five' }],
      ['POST', '/bots', { name: 'x', favourite_colour: 'blue' }],
      ['PUT', `/bots/${botId}/prompt`, {}],
      ['PUT', `/bots/${botId}/prompt`, { prompt_template: 42 }],
      ['POST', `/bots/${botId}/build`, { agent_mode: 'yes' }],
      ['POST', `/bots/${botId}/documents/path`, { path: '' }],
      ['POST', `/bots/${botId}/documents/path`, { path: join(root, 'topics.md'), review: 'please' }],
      ['POST', `/bots/${botId}/documents/link`, { links: [] }],
      ['POST', `/bots/${botId}/documents/link`, { links: 'http://example.org' }],
      ['POST', `/bots/${botId}/documents/query`, { search_query: '' }],
      ['POST', `/bots/${botId}/documents/query`, { search_query: 'heat', max_pages: 0 }],
    ];
    for (const [method, path, body] of cases) {
      const res = await server.call(method, path, { json: body });
      const label = `${method} ${path} ${JSON.stringify(body)}`;
      expect(res.status, label).toBe(400);
      const { error } = await json(res);
      expect(error.code, label).toBe('VALIDATION_FAILED');
      expect(error.message.length, label).toBeGreaterThan(0);
    }
    expect((await json(await server.call('GET', '/bots'))).total).toBe(total);
    expect(await json(await server.call('GET', `/bots/${botId}`))).toMatchObject({
      documents: 0,
      prompt_template: expect.any(String),
    });
  });
});

import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, listPage, tempDir, type TestServer } from '../helpers/app.js';
import { addBotDocument, finalizeBotDocument } from '../helpers/bot-flow.js';
import { TOPICS_MD, waitForIngest, startServerWithModel } from '../helpers/embed-flow.js';
import { type RedirectToPrivate, startRedirectToPrivate } from '../helpers/loopback-server.js';
import { startMediaWikiServer, type MediaWikiServer } from '../helpers/mediawiki-server.js';
import { startSearxServer, type SearxServer } from '../helpers/searx-server.js';
import { storeCount, collectionStored } from '../helpers/server-db.js';
import { sseRequest } from '../helpers/sse.js';
import { filesInBucket, storedKeys } from '../helpers/stored-files.js';
import { ARTICLE, startWebPagesServer, type WebPagesServer } from '../helpers/web-pages-server.js';

// The bots API through HTTP against the real server, real MiniLM embeddings, and local servers that speak
// each remote protocol (a web site, a MediaWiki API, a SearxNG API).

let server: TestServer;
let web: WebPagesServer;
let wiki: MediaWikiServer;
let searx: SearxServer;
let root = '';
let outside = '';
/** A listener the policy does not allow, and an allowed site that redirects to it. */
let toPrivate: RedirectToPrivate;
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  [web, wiki, searx] = await Promise.all([startWebPagesServer(), startMediaWikiServer(), startSearxServer()]);
  toPrivate = await startRedirectToPrivate();
  root = tempDir('lectern-roots-');
  outside = tempDir('lectern-outside-');
  writeFileSync(join(root, 'topics.md'), TOPICS_MD);
  mkdirSync(join(root, 'folder', 'deeper'), { recursive: true });
  writeFileSync(
    join(root, 'folder', 'one.md'),
    '# Rivers\n\nRivers carry water from the mountains to the sea and shape their valleys.\n',
  );
  writeFileSync(
    join(root, 'folder', 'deeper', 'two.txt'),
    'Glaciers are rivers of ice that grind the rock beneath them.\n',
  );
  // A GIF: an image format Lectern does not read.
  writeFileSync(
    join(root, 'folder', 'notes.gif'),
    new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0, 0x3b]),
  );
  writeFileSync(join(outside, 'secret.md'), '# Secret\n\nNot for bots.\n');
  symlinkSync(join(outside, 'secret.md'), join(root, 'escape.md'));
  symlinkSync(join(outside, 'secret.md'), join(root, 'folder', 'out.md'));
  symlinkSync(outside, join(root, 'outside-link'));
  server = await startServerWithModel({
    document_roots: [root],
    allowed_private_hosts: [hostOf(web.url), hostOf(wiki.apiUrl), hostOf(searx.url), hostOf(toPrivate.redirector.url)],
    encyclopedia_url: wiki.apiUrl,
    web_search_url: searx.url,
  });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([web?.close(), wiki?.close(), searx?.close(), toPrivate?.close()]);
});

const newBot = async (body: Record<string, unknown> = {}) =>
  (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' }, ...body } })))
    .bot_id as string;
const searchable = (jobId: string) => waitForIngest(server, jobId);
const vectorstore = async (botId: string, query: string) =>
  json(await server.call('POST', `/bots/${botId}/vectorstore`, { json: { query, top_k: 3 } }));

describe('bots', () => {
  it('creates, lists, reads, renames the prompt, loads and builds bots; refuses agent mode', async () => {
    const res = await server.call('POST', '/bots', {
      json: { prompt_template: 'You answer about geography.', name: 'geo' },
    });
    expect(res.status).toBe(200);
    const { bot_id } = await json(res);
    const list = await json(await server.call('GET', '/bots'));
    expect(list.items.find((b: { bot_id: string }) => b.bot_id === bot_id)).toMatchObject({
      name: 'geo',
      documents: 0,
      chats: 0,
      llm: { provider: 'local' },
    });
    expect(
      await json(await server.call('PUT', `/bots/${bot_id}/prompt`, { json: { prompt_template: 'Answer briefly.' } })),
    ).toEqual({ status: 'ok', bot_id });
    expect((await json(await server.call('GET', `/bots/${bot_id}`))).prompt_template).toBe('Answer briefly.');
    expect(await json(await server.call('POST', `/bots/${bot_id}/load`))).toEqual({ status: 'ok', bot_id });
    expect(await json(await server.call('POST', `/bots/${bot_id}/build`, { json: {} }))).toEqual({
      status: 'ok',
      bot_id,
    });
    const agent = await server.call('POST', `/bots/${bot_id}/build`, { json: { agent_mode: true } });
    expect(agent.status).toBe(400);
    expect((await json(agent)).error.code).toBe('NOT_SUPPORTED');
    const missing = await server.call('GET', '/bots/no-such-bot');
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('BOT_NOT_FOUND');
  });

  it("adds a file by path: searchable on its own, with Long-Trainer's ingest_status; the same content twice is one document", async () => {
    const botId = await newBot();
    const res = await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(root, 'topics.md') } });
    expect(res.status).toBe(200);
    const added = await json(res);
    expect(added).toMatchObject({ status: 'pending' });
    const done = await searchable(added.job_id);
    expect(done).toMatchObject({
      status: 'indexed',
      ingest_status: 'success',
      bot_id: botId,
      source: { kind: 'path', path: join(root, 'topics.md') },
    });
    const hits = await vectorstore(botId, 'How does bread dough rise?');
    expect(hits.documents[0].content).toContain('Knead the dough');
    expect(hits.documents[0].metadata).toMatchObject({ job_id: added.job_id, source: 'topics.md' });
    const again = await json(
      await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: 'topics.md' } }),
    );
    expect(again).toEqual({ job_id: added.job_id, status: 'duplicate' });
  });

  it("says failed, with why, when a document cannot be embedded (the bot's model is missing)", async () => {
    const botId = await newBot({ embedding_model: 'all-minilm-l6-v2' });
    const added = await json(
      await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(root, 'folder', 'one.md') } }),
    );
    const done = await searchable(added.job_id);
    expect(done).toMatchObject({
      status: 'finalized',
      ingest_status: 'failed',
      error: { code: expect.stringMatching(/^MODEL_NOT_(INSTALLED|FOUND)$/) },
    });
  });

  it('adds a folder recursively, skipping what is not a document; refuses paths outside the roots and symlinks out of them', async () => {
    const botId = await newBot();
    const folder = await json(
      await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(root, 'folder') } }),
    );
    expect(folder.job_ids).toHaveLength(2);
    // The link out of the roots inside the folder is listed as refused, not followed.
    expect(folder.documents.find((d: { source: string }) => d.source.endsWith('out.md'))).toMatchObject({
      status: 'failed',
      error: { code: 'PATH_NOT_ALLOWED' },
    });
    expect(folder.documents.find((d: { source: string }) => d.source.endsWith('notes.gif'))).toMatchObject({
      status: 'failed',
      error: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
    for (const id of folder.job_ids) expect((await searchable(id)).ingest_status).toBe('success');
    expect((await vectorstore(botId, 'ice grinding rock')).documents[0].content).toContain('Glaciers');
    for (const [path, status, code] of [
      [join(outside, 'secret.md'), 403, 'PATH_NOT_ALLOWED'],
      [join(root, 'escape.md'), 403, 'PATH_NOT_ALLOWED'],
      [join(root, '..', '..', 'etc', 'passwd'), 403, 'PATH_NOT_ALLOWED'],
      // Whether a file exists outside the roots is not told: a missing one is refused alike.
      [join(outside, 'missing.md'), 403, 'PATH_NOT_ALLOWED'],
      [join(root, 'outside-link', 'missing.md'), 403, 'PATH_NOT_ALLOWED'],
      [join(root, 'nothing-here.md'), 404, 'FILE_NOT_FOUND'],
      [join(root, 'no-folder', 'nothing-here.md'), 404, 'FILE_NOT_FOUND'],
    ] as const) {
      const res = await server.call('POST', `/bots/${botId}/documents/path`, { json: { path } });
      expect(res.status, path).toBe(status);
      expect((await json(res)).error.code).toBe(code);
    }
  });

  it('adds links through the guarded fetch: an article without its boilerplate, followed through redirects, a failure listed with its reason', async () => {
    const botId = await newBot();
    const res = await server.call('POST', `/bots/${botId}/documents/link`, {
      json: { links: [`${web.url}/old/heat`, `${web.url}/missing`] },
    });
    expect(res.status).toBe(200);
    const { documents } = await json(res);
    expect(documents[0]).toMatchObject({ status: 'pending', final_url: `${web.url}/articles/heat-transfer` });
    expect(documents[1]).toMatchObject({ status: 'failed', job_id: null, error: { code: 'FETCH_FAILED' } });
    const j = await searchable(documents[0].job_id);
    expect(j.source).toMatchObject({
      kind: 'link',
      url: `${web.url}/old/heat`,
      final_url: `${web.url}/articles/heat-transfer`,
    });
    expect(j.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    const hits = await vectorstore(botId, 'conduction convection radiation');
    expect(hits.documents.map((d: { content: string }) => d.content).join(' ')).not.toContain(ARTICLE.boilerplate[2]);
    // The same page again (its ads differ) is the same document.
    const again = await json(
      await server.call('POST', `/bots/${botId}/documents/link`, {
        json: { links: [`${web.url}/articles/heat-transfer`] },
      }),
    );
    expect(again.documents[0]).toMatchObject({ status: 'duplicate', job_id: documents[0].job_id });
  });

  it('refuses a link to a private address or one redirecting there, sending nothing to it', async () => {
    const botId = await newBot();
    const direct = await server.call('POST', `/bots/${botId}/documents/link`, {
      json: { links: [`${toPrivate.privateListener.url}/x`] },
    });
    expect(direct.status).toBe(403);
    expect((await json(direct)).error).toMatchObject({ code: 'URL_NOT_ALLOWED' });
    // An allowed site redirecting to a private address: the redirect is checked like the first URL.
    const redirected = await server.call('POST', `/bots/${botId}/documents/link`, {
      json: { links: [`${toPrivate.redirector.url}/go`, `${web.url}/missing`] },
    });
    expect(redirected.status).toBe(502);
    const err = (await json(redirected)).error;
    expect(err.code).toBe('LINK_FETCH_FAILED');
    expect(err.details.documents[0]).toMatchObject({
      url: `${toPrivate.redirector.url}/go`,
      error: { code: 'URL_NOT_ALLOWED' },
    });
    expect(toPrivate.redirector.connections()).toBeGreaterThan(0);
    expect(toPrivate.privateListener.connections()).toBe(0);
  });

  it('adds encyclopedia articles whole, skipping disambiguation pages, each with its title, URL and revision', async () => {
    const botId = await newBot();
    const res = await server.call('POST', `/bots/${botId}/documents/query`, {
      json: { search_query: 'heat', max_pages: 2 },
    });
    expect(res.status).toBe(200);
    const { documents } = await json(res);
    expect(documents).toHaveLength(2);
    expect(documents.map((d: { title: string }) => d.title)).not.toContain('Heat (disambiguation)');
    for (const d of documents) {
      const j = await searchable(d.job_id);
      expect(j.source).toMatchObject({ kind: 'encyclopedia', title: d.title, url: d.url, revision_id: d.revision_id });
    }
  });
});

describe('bot chats', () => {
  let botId = '';
  beforeAll(async () => {
    botId = await newBot({ prompt_template: 'You answer from the notes.' });
    await addBotDocument(server, botId, join(root, 'topics.md'));
  });

  it('answers with citations naming the source, remembers the chat, and says when nothing is relevant', async () => {
    const { chat_id } = await json(await server.call('POST', `/bots/${botId}/chats`));
    const res = await server.call('POST', `/bots/${botId}/chats/${chat_id}`, {
      json: { query: 'What does chlorophyll capture?' },
    });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.answer).toContain('sunlight');
    expect(m.citations[0]).toMatchObject({ source: 'topics.md', page_numbers: [1] });
    expect(m.citations[0].quote).toContain('Chlorophyll');
    expect(m.web_sources).toEqual([]);
    const none = await json(
      await server.call('POST', `/bots/${botId}/chats/${chat_id}`, {
        json: { query: 'Who won the 1974 football world cup?' },
      }),
    );
    expect(none).toMatchObject({ not_found: true, citations: [] });
    expect(await json(await server.call('GET', `/bots/${botId}/chats`))).toEqual([chat_id]);
    const history = await json(await server.call('GET', `/chats/${chat_id}?order=newest`));
    expect(history.messages.map((x: { question: string }) => x.question)).toEqual([
      'Who won the 1974 football world cup?',
      'What does chlorophyll capture?',
    ]);
    expect(history.messages[1]).toMatchObject({ message_id: m.message_id, status: 'complete' });
  });

  it('streams sources, tokens and done; adds web results when asked; refuses stream with schema', async () => {
    const { chat_id } = await json(await server.call('POST', `/bots/${botId}/chats`));
    const { res, events } = await sseRequest(`${server.url}/bots/${botId}/chats/${chat_id}`, {
      method: 'POST',
      headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How much heat does baking bread need?', stream: true, web_search: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(events.map((e) => e.event)).toEqual(['sources', 'token', 'done']);
    const done = events[2]!.data;
    expect(done.web_sources.length).toBeGreaterThan(0);
    expect(done.web_sources[0]).toMatchObject({ url: 'https://example.org/heat' });
    expect(done.citations.every((c: { job_id: string }) => c.job_id)).toBe(true);
    expect(searx.requests.at(-1)?.get('q')).toBe('How much heat does baking bread need?');
    // The history keeps the message as it was streamed: its web sources and citations too.
    const kept = (await json(await server.call('GET', `/chats/${chat_id}?order=oldest`))).messages;
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      message_id: done.message_id,
      web_sources: done.web_sources,
      citations: done.citations,
      created_at: done.created_at,
    });
    const both = await server.call('POST', `/bots/${botId}/chats/${chat_id}`, {
      json: { query: 'x', stream: true, schema: { type: 'object' } },
    });
    expect(both.status).toBe(400);
    expect((await json(both)).error.code).toBe('STREAM_WITH_SCHEMA');
  });

  it("keeps chats apart: another bot's chat is not found, nor an unknown one", async () => {
    const other = await newBot();
    const { chat_id } = await json(await server.call('POST', `/bots/${other}/chats`));
    const res = await server.call('POST', `/bots/${botId}/chats/${chat_id}`, { json: { query: 'hello' } });
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('CHAT_NOT_FOUND');
    expect((await server.call('GET', '/chats/nope')).status).toBe(404);
  });

  it('keeps a document added for review out of answers until a person finalizes it', async () => {
    const bot = await newBot();
    writeFileSync(
      join(root, 'review.md'),
      '# Lighthouses\n\nA lighthouse keeper trims the lamp wick every evening at dusk.\n',
    );
    const added = await json(
      await server.call('POST', `/bots/${bot}/documents/path`, {
        json: { path: join(root, 'review.md'), review: true },
      }),
    );
    const waiting = await server.waitFor(added.job_id);
    expect(waiting).toMatchObject({ status: 'ready_for_review', ingest_status: 'pending' });
    expect((await vectorstore(bot, 'lighthouse keeper lamp')).documents).toEqual([]);
    const { chat_id } = await json(await server.call('POST', `/bots/${bot}/chats`));
    expect(
      (
        await json(
          await server.call('POST', `/bots/${bot}/chats/${chat_id}`, {
            json: { query: 'What does the lighthouse keeper trim?' },
          }),
        )
      ).not_found,
    ).toBe(true);
    await finalizeBotDocument(server, added.job_id);
    expect((await vectorstore(bot, 'lighthouse keeper lamp')).documents[0].content).toContain('lamp wick');
  });

  it('deletes a bot with its chats, documents, files and vectors', async () => {
    const bot = await newBot();
    const added = await json(
      await server.call('POST', `/bots/${bot}/documents/path`, { json: { path: join(root, 'folder', 'one.md') } }),
    );
    await searchable(added.job_id);
    const { chat_id } = await json(await server.call('POST', `/bots/${bot}/chats`));
    await server.call('POST', `/bots/${bot}/chats/${chat_id}`, { json: { query: 'Where do rivers go?' } });
    expect(await collectionStored(server.dataDir, `bot-${bot}`)).toBe(true);
    expect(await json(await server.call('DELETE', `/bots/${bot}`))).toEqual({ status: 'deleted', bot_id: bot });
    expect((await server.call('GET', `/bots/${bot}`)).status).toBe(404);
    expect((await server.call('GET', `/jobs/${added.job_id}`)).status).toBe(404);
    expect((await server.call('GET', `/chats/${chat_id}`)).status).toBe(404);
    expect(await collectionStored(server.dataDir, `bot-${bot}`)).toBe(false);
    expect(await storedKeys(server.dataDir, `files/${added.job_id}`)).toEqual([]);
    if (!filesInBucket(server.dataDir)) expect(existsSync(join(server.dataDir, 'files', added.job_id))).toBe(false);
    // What the store still holds of the bot, read beside the server.
    const count = (sql: string, arg: string) => storeCount(server.dataDir, sql, [arg]);
    expect(await count('SELECT count(*) AS n FROM jobs WHERE bot_id = ?', bot)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM conversations WHERE bot_id = ?', bot)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM messages WHERE conversation_id = ?', chat_id)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM chunk_vectors WHERE job_id = ?', added.job_id)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM collections WHERE name = ?', `bot-${bot}`)).toBe(0);
  });

  it('learns from chats only what a person kept: ratings, a review job of the pairs, trained once in the index', async () => {
    const bot = await newBot();
    await addBotDocument(server, bot, join(root, 'topics.md'));
    const { chat_id } = await json(await server.call('POST', `/bots/${bot}/chats`));
    const askBot = async (query: string) =>
      json(await server.call('POST', `/bots/${bot}/chats/${chat_id}`, { json: { query } }));
    const liked = await askBot('What does chlorophyll capture?');
    const disliked = await askBot('How is bread dough prepared?');
    await askBot('Who won the 1974 football world cup?'); // not found: never a pair
    const rate = (id: string, rating: string) =>
      server.call('POST', `/chats/${chat_id}/messages/${id}/feedback`, { json: { rating, note: 'checked' } });
    expect(await json(await rate(liked.message_id, 'up'))).toMatchObject({ rating: 'up', note: 'checked' });
    expect((await rate(disliked.message_id, 'down')).status).toBe(200);
    expect((await rate('no-such-message', 'up')).status).toBe(404);
    // The history shows each answer's rating and note.
    const rated = (await json(await server.call('GET', `/chats/${chat_id}`))).messages;
    expect(rated.map((m: { rating: string | null; rating_note: string | null }) => [m.rating, m.rating_note])).toEqual([
      ['up', 'checked'],
      ['down', 'checked'],
      [null, null],
    ]);

    const trained = await json(await server.call('POST', `/bots/${bot}/train-chats`));
    expect(trained).toMatchObject({ pairs: 1, job_id: expect.any(String), csv_path: expect.stringMatching(/\.csv$/) });
    expect(readFileSync(trained.csv_path, 'utf8')).toContain('What does chlorophyll capture?');
    // Nothing is marked before the review: a second call finds the pair already waiting.
    expect(await json(await server.call('POST', `/bots/${bot}/train-chats`))).toMatchObject({
      message: 'No new chats found for training.',
      csv_path: null,
    });
    const job = await server.waitFor(trained.job_id);
    expect(job).toMatchObject({
      status: 'ready_for_review',
      ingest_status: 'pending',
      source: { kind: 'chat_training' },
    });
    expect(job.source.pairs).toEqual([{ chat_id, message_id: liked.message_id, citations: liked.citations }]);
    const blocksOf = (await listPage(server, `/jobs/${trained.job_id}/blocks`)).items;
    expect(blocksOf.map((b: { type: string; text: string }) => [b.type, b.text.slice(0, 4)])).toContainEqual([
      'heading',
      'Q1. ',
    ]);
    await finalizeBotDocument(server, trained.job_id);
    const hits = await vectorstore(bot, 'What does chlorophyll capture?');
    expect(hits.documents.map((h: { metadata: { source: string } }) => h.metadata.source)).toContain(
      'Learned from chats',
    );
    expect(await json(await server.call('POST', `/bots/${bot}/train-chats`))).toMatchObject({
      pairs: 0,
      csv_path: null,
    });
  });

  it('describes every bots route in the OpenAPI', async () => {
    const spec = await json(await server.call('GET', '/openapi.json'));
    for (const [path, method] of [
      ['/bots', 'post'],
      ['/bots', 'get'],
      ['/bots/{bot_id}', 'get'],
      ['/bots/{bot_id}', 'delete'],
      ['/bots/{bot_id}/build', 'post'],
      ['/bots/{bot_id}/load', 'post'],
      ['/bots/{bot_id}/prompt', 'put'],
      ['/bots/{bot_id}/documents/path', 'post'],
      ['/bots/{bot_id}/documents/link', 'post'],
      ['/bots/{bot_id}/documents/query', 'post'],
      ['/bots/{bot_id}/chats', 'post'],
      ['/bots/{bot_id}/chats', 'get'],
      ['/bots/{bot_id}/chats/{chat_id}', 'post'],
      ['/chats/{chat_id}', 'get'],
      ['/bots/{bot_id}/vectorstore', 'post'],
      ['/chats/{chat_id}/messages/{message_id}/feedback', 'post'],
      ['/bots/{bot_id}/train-chats', 'post'],
      ['/v1/models', 'get'],
      ['/v1/chat/completions', 'post'],
    ] as const) {
      expect(spec.paths[path]?.[method], `${method} ${path}`).toBeTruthy();
      expect(spec.paths[path][method].responses['401'], `${method} ${path} 401`).toBeTruthy();
    }
  });
});

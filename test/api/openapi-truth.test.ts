import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, ingest, json, startServer, type TestServer } from '../helpers/app.js';
import {
  openApiChecker,
  type OpenApiChecker,
  type OpenApiDoc as Doc,
  type Operation,
} from '../helpers/openapi-check.js';

// Every operation of /openapi.json, asked the ways clients get it wrong: without the key, with ids that do
// not exist, with a body that is not JSON. Each answer's status, content type and body must be what the
// document declares for that operation; and the document's own promises (200s, optional paging) hold.

let server: TestServer;
let doc: Doc;
let check: OpenApiChecker;

beforeAll(async () => {
  // Every operation is asked without the key from one address: far past the per-minute limit of wrong keys.
  server = await startServer({ settings: { workers: 1, auth_failures_per_minute: 100_000 } });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  check = openApiChecker(doc);
});
afterAll(async () => server?.close());

const operations = () => check.operations();

/** The path with every parameter an id nothing has (integers far past any page). */
const concrete = (path: string, op: Operation) =>
  path.replace(/{(\w+)}/g, (_, name: string) =>
    op.parameters?.find((p) => p.name === name)?.schema?.type === 'integer' ? '999999' : `no-such-${name}`,
  );

const hasBody = (method: string) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);

const mismatch = (res: Response, op: Operation) => check.mismatch(res, op);
const streamMismatch = (text: string, schema: unknown) => check.streamMismatch(text, schema);

const ask = (method: string, path: string, o: { key?: boolean; body?: string } = {}) =>
  fetch(server.url + path, {
    method,
    headers: {
      ...(o.key === false ? {} : { 'x-api-key': server.key }),
      ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: o.body,
  });

describe('the OpenAPI document tells the truth', () => {
  it('declares what every operation answers without the key: 401 as JSON', async () => {
    expect(operations().length).toBeGreaterThanOrEqual(40);
    const wrong: string[] = [];
    for (const [method, path, op] of operations()) {
      const res = await ask(method, concrete(path, op), { key: false, body: hasBody(method) ? '{}' : undefined });
      if (res.status !== 401) wrong.push(`${method} ${path}: ${res.status} without the key`);
      const problem = await mismatch(res, op);
      if (problem) wrong.push(`${method} ${path}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });

  it('declares what every operation answers for ids that do not exist (404 for reads and deletes)', async () => {
    const wrong: string[] = [];
    for (const [method, path, op] of operations()) {
      if (!path.includes('{')) continue;
      const res = await ask(method, concrete(path, op), { body: hasBody(method) ? '{}' : undefined });
      if ((method === 'GET' || method === 'DELETE') && res.status !== 404)
        wrong.push(`${method} ${path}: ${res.status}, not 404`);
      const problem = await mismatch(res, op);
      if (problem) wrong.push(`${method} ${path}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });

  it('declares the 400 every operation with a body answers to a body that is not JSON', async () => {
    const wrong: string[] = [];
    for (const [method, path, op] of operations()) {
      if (!hasBody(method)) continue;
      const res = await ask(method, concrete(path, op), { body: '{"not json' });
      if (res.status !== 400) wrong.push(`${method} ${path}: ${res.status} for a body that is not JSON`);
      const problem = await mismatch(res, op);
      if (problem) wrong.push(`${method} ${path}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });

  it('declares the streams and what each of their events carries', async () => {
    const job = await ingest(server, 'stream.md', enc('# Streams\n\nEvents are declared too.\n'));
    const bot = (await json(await ask('POST', '/bots', { body: JSON.stringify({ llm: { provider: 'extractive' } }) })))
      .bot_id as string;
    const chat = (await json(await ask('POST', `/bots/${bot}/chats`))).chat_id as string;
    const streams: [string, string, string, unknown][] = [
      ['GET', '/jobs/{job_id}/events', `/jobs/${job.job_id}/events`, undefined],
      [
        'POST',
        '/bots/{bot_id}/chats/{chat_id}',
        `/bots/${bot}/chats/${chat}`,
        { query: 'What is declared?', stream: true },
      ],
      [
        'POST',
        '/v1/chat/completions',
        '/v1/chat/completions',
        { model: `bot:${bot}`, messages: [{ role: 'user', content: 'What is declared?' }], stream: true },
      ],
    ];
    for (const [method, template, path, body] of streams) {
      const res = await ask(method, path, { body: body === undefined ? undefined : JSON.stringify(body) });
      expect(res.status, template).toBe(200);
      expect(res.headers.get('content-type'), template).toMatch(/^text\/event-stream/);
      const declared = doc.paths[template]![method.toLowerCase()]!.responses['200']!.content!['text/event-stream'];
      expect(declared, template).toBeDefined();
      const text = await res.text();
      expect(text, template).toMatch(/^data: /m);
      expect(streamMismatch(text, declared!.schema), template).toEqual([]);
    }
    // The same routes without `stream` answer JSON, as declared.
    const plain = await ask('POST', '/v1/chat/completions', {
      body: JSON.stringify({ model: `bot:${bot}`, messages: [{ role: 'user', content: 'What is declared?' }] }),
    });
    expect(plain.status).toBe(200);
    expect(await mismatch(plain, doc.paths['/v1/chat/completions']!.post!)).toBeUndefined();
  });

  it('declares the files the export and page image send, and that their errors are JSON', () => {
    const exportOk = doc.paths['/jobs/{job_id}/export']!.get!.responses;
    expect(Object.keys(exportOk['200']!.content!)).toEqual(['application/zip']);
    const image = doc.paths['/jobs/{job_id}/pages/{page}/image']!.get!.responses;
    expect(Object.keys(image['200']!.content!)).toEqual(['image/png']);
    for (const responses of [exportOk, image]) {
      for (const status of ['401', '404', '409'])
        expect(Object.keys(responses[status]!.content!)).toEqual(['application/json']);
    }
    expect(Object.keys(doc.paths['/jobs/{job_id}/events']!.get!.responses['200']!.content!)).toEqual([
      'text/event-stream',
    ]);
    expect(Object.keys(doc.paths['/chat']!.post!.responses['200']!.content!).sort()).toEqual([
      'application/json',
      'text/event-stream',
    ]);
  });

  it('marks paging parameters optional, as they have defaults', () => {
    const paging = operations().flatMap(([method, path, op]) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'query' && ['skip', 'limit'].includes(p.name))
        .map((p) => ({ at: `${method} ${path} ${p.name}`, required: p.required ?? false })),
    );
    expect(paging.length).toBeGreaterThanOrEqual(12);
    expect(paging.filter((p) => p.required)).toEqual([]);
  });
});

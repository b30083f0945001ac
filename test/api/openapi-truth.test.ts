import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, ingest, json, startServer, type TestServer } from '../helpers/app.js';

// Every operation of /openapi.json, asked the ways clients get it wrong: without the key, with ids that do
// not exist, with a body that is not JSON. Each answer's status, content type and body must be what the
// document declares for that operation; and the document's own promises (200s, optional paging) hold.

interface MediaType {
  schema?: unknown;
}
interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema?: { type?: string } }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

let server: TestServer;
let doc: Doc;
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);

beforeAll(async () => {
  // Every operation is asked without the key from one address: far past the per-minute limit of wrong keys.
  server = await startServer({ settings: { workers: 1, auth_failures_per_minute: 100_000 } });
  doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
  ajv.addSchema({ $id: 'openapi', components: doc.components });
});
afterAll(async () => server?.close());

const operations = (): [string, string, Operation][] => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => [m.toUpperCase(), path, op] as [string, string, Operation]));

/** The path with every parameter an id nothing has (integers far past any page). */
const concrete = (path: string, op: Operation) =>
  path.replace(/{(\w+)}/g, (_, name: string) => (op.parameters?.find((p) => p.name === name)?.schema?.type === 'integer' ? '999999' : `no-such-${name}`));

const hasBody = (method: string) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method);

/** Checks an answer against the operation's declared responses; returns a description of what is wrong. */
async function mismatch(res: Response, op: Operation): Promise<string | undefined> {
  const declared = op.responses[String(res.status)];
  const text = await res.text();
  if (!declared) return `status ${res.status} is not declared (${Object.keys(op.responses).join(', ')}): ${text.slice(0, 200)}`;
  if (res.status === 204) return undefined;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = declared.content?.[type];
  if (!media) return `${res.status} came as ${type}, declared ${Object.keys(declared.content ?? {}).join(', ') || 'without content'}`;
  if (type !== 'application/json' || media.schema === undefined) return undefined;
  const validate = compile(media.schema);
  return validate(JSON.parse(text)) ? undefined : `${res.status} body breaks its schema: ${ajv.errorsText(validate.errors)}: ${text.slice(0, 200)}`;
}

const compile = (schema: unknown) => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as object);

/** Each event of a text/event-stream body checked against the declared event schemas: its name, and its JSON data against `contentSchema`. */
function streamMismatch(text: string, schema: unknown): string[] {
  const branches = ((schema as { anyOf?: unknown[] }).anyOf ?? [schema]) as { properties: { event?: { enum?: string[]; const?: string }; data: { contentSchema?: unknown } } }[];
  const wrong: string[] = [];
  for (const block of text.split('\n\n').filter((b) => b.trim())) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
    const branch = branches.find((b) => (b.properties.event?.enum?.[0] ?? b.properties.event?.const) === event);
    if (!branch) wrong.push(`event ${event} is not declared`);
    else if (branch.properties.data.contentSchema) {
      const validate = compile(branch.properties.data.contentSchema);
      if (!validate(JSON.parse(data))) wrong.push(`event ${event}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return wrong;
}

const ask = (method: string, path: string, o: { key?: boolean; body?: string } = {}) =>
  fetch(server.url + path, {
    method,
    headers: { ...(o.key === false ? {} : { 'x-api-key': server.key }), ...(o.body === undefined ? {} : { 'content-type': 'application/json' }) },
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
      if ((method === 'GET' || method === 'DELETE') && res.status !== 404) wrong.push(`${method} ${path}: ${res.status}, not 404`);
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
    const bot = (await json(await ask('POST', '/bots', { body: JSON.stringify({ llm: { provider: 'extractive' } }) }))).bot_id as string;
    const chat = (await json(await ask('POST', `/bots/${bot}/chats`))).chat_id as string;
    const streams: [string, string, string, unknown][] = [
      ['GET', '/jobs/{job_id}/events', `/jobs/${job.job_id}/events`, undefined],
      ['POST', '/bots/{bot_id}/chats/{chat_id}', `/bots/${bot}/chats/${chat}`, { query: 'What is declared?', stream: true }],
      ['POST', '/v1/chat/completions', '/v1/chat/completions', { model: `bot:${bot}`, messages: [{ role: 'user', content: 'What is declared?' }], stream: true }],
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
    const plain = await ask('POST', '/v1/chat/completions', { body: JSON.stringify({ model: `bot:${bot}`, messages: [{ role: 'user', content: 'What is declared?' }] }) });
    expect(plain.status).toBe(200);
    expect(await mismatch(plain, doc.paths['/v1/chat/completions']!.post!)).toBeUndefined();
  });

  it('declares the files the export and page image send, and that their errors are JSON', () => {
    const exportOk = doc.paths['/jobs/{job_id}/export']!.get!.responses;
    expect(Object.keys(exportOk['200']!.content!)).toEqual(['application/zip']);
    const image = doc.paths['/jobs/{job_id}/pages/{page}/image']!.get!.responses;
    expect(Object.keys(image['200']!.content!)).toEqual(['image/png']);
    for (const responses of [exportOk, image]) {
      for (const status of ['401', '404', '409']) expect(Object.keys(responses[status]!.content!)).toEqual(['application/json']);
    }
    expect(Object.keys(doc.paths['/jobs/{job_id}/events']!.get!.responses['200']!.content!)).toEqual(['text/event-stream']);
    expect(Object.keys(doc.paths['/chat']!.post!.responses['200']!.content!).sort()).toEqual(['application/json', 'text/event-stream']);
  });

  it('marks paging parameters optional, as they have defaults', () => {
    const paging = operations().flatMap(([method, path, op]) => (op.parameters ?? []).filter((p) => p.in === 'query' && ['skip', 'limit'].includes(p.name)).map((p) => ({ at: `${method} ${path} ${p.name}`, required: p.required ?? false })));
    expect(paging.length).toBeGreaterThanOrEqual(12);
    expect(paging.filter((p) => p.required)).toEqual([]);
  });
});

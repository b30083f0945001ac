import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_ORIGIN } from '../../server/api/plugins/cors.js';
import { loadSettings } from '../../server/config/load-settings.js';
import { enc, ingest, json, startServer } from '../helpers/app.js';
import { useServer } from '../helpers/use-server.js';

// The HTTP surface as a browser or a hostile page meets it: which Host names are served, which origins get
// CORS, what a wrong method answers, and inputs that used to be 500s.

const server = useServer(() =>
  startServer({ settings: { workers: 1, allowed_hosts: ['lectern.lan', 'proxy.lan:8443'] } }),
);
let port = 0;
beforeAll(async () => {
  port = Number(new URL(server.url).port);
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: fetch sets Host itself. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host names (DNS rebinding)', () => {
  it('refuses a foreign Host with 421 on the API, the UI, the OpenAPI and the docs, with or without a key', async () => {
    for (const path of ['/jobs', '/', '/openapi.json', '/docs', '/health', '/no-such-path']) {
      for (const key of [{ 'x-api-key': server.key }, {}] as Record<string, string>[]) {
        const res = await raw('GET', path, { host: `evil.example:${port}`, ...key });
        expect(res.status, path).toBe(421);
        expect(JSON.parse(res.body).error.code).toBe('MISDIRECTED_REQUEST');
      }
    }
    expect((await raw('GET', '/jobs', { host: 'evil.example', 'x-api-key': server.key })).status).toBe(421);
    // Names that only look like ours.
    for (const host of [
      'localhost.evil.example',
      '127.0.0.1.nip.io',
      '127.0.0.2',
      'evil.example:@localhost',
      'localhost:abc',
    ]) {
      expect((await raw('GET', '/health', { host, 'x-api-key': server.key })).status, host).toBe(421);
    }
  });

  it('serves its loopback names, on the port it listens on or without one', async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      'localhost',
      'LOCALHOST.',
      `lectern.lan:${port}`,
      'proxy.lan:8443',
    ]) {
      expect((await raw('GET', '/health', { host, 'x-api-key': server.key })).status, host).toBe(200);
    }
    // The port is the one the request came in on (the server listens on port 0 and learns it).
    for (const host of [`localhost:${port + 1}`, 'localhost:80', `lectern.lan:${port + 1}`, `proxy.lan:${port}`]) {
      expect((await raw('GET', '/health', { host, 'x-api-key': server.key })).status, host).toBe(421);
    }
  });

  it('reads allowed_hosts from LECTERN_ALLOWED_HOSTS, comma-separated, and checks each entry', () => {
    const settings = loadSettings({
      env: { LECTERN_ALLOWED_HOSTS: 'lectern.lan, proxy.lan:8443,[fd00::1]' },
      cwd: server.dataDir,
      flags: { data_dir: server.dataDir },
    });
    expect(settings.allowed_hosts).toEqual(['lectern.lan', 'proxy.lan:8443', '[fd00::1]']);
    expect(() =>
      loadSettings({
        env: { LECTERN_ALLOWED_HOSTS: 'http://lectern.lan/' },
        cwd: server.dataDir,
        flags: { data_dir: server.dataDir },
      }),
    ).toThrow(/allowed_hosts/);
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    raw('OPTIONS', '/jobs', {
      host: `127.0.0.1:${port}`,
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-api-key',
    });

  it('answers exactly the desktop window\'s origin, never "null", file URLs or web sites', async () => {
    const desktop = await preflight(DESKTOP_ORIGIN);
    expect(desktop.status).toBe(204);
    expect(desktop.headers['access-control-allow-origin']).toBe('lectern://app');
    expect(desktop.headers['access-control-allow-headers']).toContain('x-api-key');
    for (const origin of [
      'null',
      'file://',
      'https://evil.example',
      'lectern://app.evil.example',
      'lectern://evil',
      `http://127.0.0.1:${port + 1}`,
    ]) {
      const res = await preflight(origin);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(res.headers['access-control-allow-methods'], origin).toBeUndefined();
      const get = await raw('GET', '/jobs', { host: `127.0.0.1:${port}`, origin, 'x-api-key': server.key });
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it('lets the desktop window read answers, errors and streams alike', async () => {
    const headers = { host: `127.0.0.1:${port}`, origin: DESKTOP_ORIGIN };
    const ok = await raw('GET', '/health', { ...headers, 'x-api-key': server.key });
    expect(ok.headers['access-control-allow-origin']).toBe(DESKTOP_ORIGIN);
    expect(ok.headers.vary).toMatch(/Origin/);
    const unauthorized = await raw('GET', '/jobs', headers);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(DESKTOP_ORIGIN);
    const job = await ingest(server, 'cors.md', enc('# CORS\n\nA stream for the window.\n'));
    // A list's paging is in headers: the window may read them.
    const blocks = await raw('GET', `/jobs/${job.job_id}/blocks?limit=1`, { ...headers, 'x-api-key': server.key });
    expect(blocks.headers['x-total-count']).toBeDefined();
    expect(String(blocks.headers['access-control-expose-headers']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['x-total-count', 'link']),
    );
    const events = await raw('GET', `/jobs/${job.job_id}/events`, { ...headers, 'x-api-key': server.key });
    expect(events.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(events.headers['access-control-allow-origin']).toBe(DESKTOP_ORIGIN);
  });
});

describe('methods', () => {
  it('answers 405 with Allow for a known path asked with another method, 404 for an unknown path', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/jobs', 'GET, HEAD, OPTIONS, POST'],
      ['TRACE', '/health', 'GET, HEAD, OPTIONS'],
      ['POST', '/jobs/some-job', 'DELETE, GET, HEAD, OPTIONS'],
      ['QUERY', '/jobs/some-job/blocks', 'GET, HEAD, OPTIONS'],
      // The review route's path, not block "review" of the block route beside it.
      ['DELETE', '/jobs/some-job/blocks/review', 'OPTIONS, POST'],
    ] as const) {
      const res = await raw(method, path, { host: `127.0.0.1:${port}`, 'x-api-key': server.key });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow, `${method} ${path}`).toBe(allow);
      expect(JSON.parse(res.body).error.code).toBe('METHOD_NOT_ALLOWED');
    }
    const unknown = await raw('PUT', '/no-such-path', { host: `127.0.0.1:${port}`, 'x-api-key': server.key });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('NOT_FOUND');
    // Without the key it is 401 first, as for any route.
    expect((await raw('PUT', '/jobs', { host: `127.0.0.1:${port}` })).status).toBe(401);
  });

  it('lists the methods of a path in answer to OPTIONS', async () => {
    const res = await raw('OPTIONS', '/jobs/some-job/blocks/b1', { host: `127.0.0.1:${port}` });
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS, PATCH');
    expect((await raw('OPTIONS', '/no-such-path', { host: `127.0.0.1:${port}` })).status).toBe(404);
  });
});

describe('inputs that were 500s', () => {
  it('refuses skip past what SQLite takes with 400 on every paginated list, and takes the largest exact one', async () => {
    const job = await ingest(server, 'paging.md', enc('# Paging\n\nOne paragraph.\n'));
    const lists = [
      '/jobs',
      `/jobs/${job.job_id}/blocks`,
      `/jobs/${job.job_id}/chunks`,
      `/jobs/${job.job_id}/audit`,
      '/bots',
    ];
    for (const list of lists) {
      for (const skip of ['9223372036854775808', '196232982764115239895040', '1e300']) {
        const res = await server.call('GET', `${list}?skip=${skip}`);
        expect(res.status, `${list} skip=${skip}`).toBe(400);
        expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
      }
      const last = await server.call('GET', `${list}?skip=${Number.MAX_SAFE_INTEGER}`);
      expect(last.status, list).toBe(200);
      // Blocks, chunks and the audit answer arrays (their total in X-Total-Count), /jobs {jobs}, /bots {items}.
      const body = await json(last);
      expect(Array.isArray(body) ? body : (body.jobs ?? body.items)).toEqual([]);
    }
  });

  it('refuses a multipart body without a usable boundary, or broken off, with 400', async () => {
    const bodies: [string, string][] = [
      ['multipart/form-data', 'abc'],
      ['multipart/form-data; boundary=', 'abc'],
      [`multipart/form-data; boundary=${'a'.repeat(300)}`, 'abc'],
      [
        'multipart/form-data; boundary=xx',
        '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n\r\n# cut off',
      ],
    ];
    for (const [type, body] of bodies) {
      const res = await server.call('POST', '/jobs', { body, headers: { 'content-type': type } });
      expect(res.status, type.slice(0, 60)).toBe(400);
      expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses an over-long or badly encoded path parameter with 400 in the error shape', async () => {
    for (const path of [`/jobs/${'x'.repeat(150)}/cancel`, '/jobs/%E0%A4%A']) {
      const res = await server.call('POST', path);
      expect(res.status, path).toBe(400);
      expect((await json(res)).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('exports a job whose file name is 300 characters long, again and again', async () => {
    const name = `${'a very long name '.repeat(18).slice(0, 296)}.pdf.md`;
    const job = await ingest(server, name, enc('# Long\n\nThe name is long.\n'));
    expect(
      (await server.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } }))
        .status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await server.call('GET', `/jobs/${job.job_id}/export`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? '';
      expect(fileName).toMatch(/^a_very_long_name_.*-lectern\.zip$/);
      expect(fileName.length).toBeLessThanOrEqual(120);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it("answers an unparsable base_url with 400 URL_INVALID, not 502: chat, embedding and a bot's model", async () => {
    const job = await ingest(server, 'base-url.md', enc('# Base URL\n\nSomething to embed.\n'));
    expect(
      (await server.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } }))
        .status,
    ).toBe(200);
    for (const baseUrl of ['ht!tp://::', 'not a url', '::nonsense']) {
      const bot = (
        await json(
          await server.call('POST', '/bots', { json: { llm: { provider: 'openai', model: 'm', base_url: baseUrl } } }),
        )
      ).bot_id as string;
      const chat = (await json(await server.call('POST', `/bots/${bot}/chats`))).chat_id as string;
      for (const res of [
        await server.call('POST', '/chat', {
          json: { job_id: job.job_id, question: 'q', llm_provider: 'openai', llm_model: 'm', base_url: baseUrl },
        }),
        await server.call('POST', `/jobs/${job.job_id}/embed`, {
          json: { provider: 'openai', model: 'm', base_url: baseUrl },
        }),
        await server.call('POST', `/bots/${bot}/chats/${chat}`, { json: { query: 'hello' } }),
      ]) {
        expect(res.status, `${res.url} ${baseUrl}`).toBe(400);
        expect((await json(res)).error.code).toBe('URL_INVALID');
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { startServer } from '../helpers/app.js';
import { useServer } from '../helpers/use-server.js';

// Every route is tried with wrong keys from one address: far past the default 10 a minute, whose
// 429s test/api/keys-rate-limit.test.ts checks.
const server = useServer(() => startServer({ settings: { auth_failures_per_minute: 100_000 } }));

const concrete = (url: string) => url.replace(/:(\w+)/g, 'x-$1');

describe('authentication', () => {
  it('requires X-API-Key on every API route of the route table', async () => {
    const routes = server.app.server.routeTable.filter((r) => !r.public);
    expect(routes.length).toBeGreaterThanOrEqual(14);
    for (const r of routes) {
      for (const headers of [{}, { 'x-api-key': 'wrong-key' }, { 'x-api-key': `${server.key}x` }] as Record<
        string,
        string
      >[]) {
        const res = await fetch(server.url + concrete(r.url), { method: r.method, headers });
        expect(res.status, `${r.method} ${r.url} with ${JSON.stringify(headers)}`).toBe(401);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('UNAUTHORIZED');
        expect(body.error.message).toMatch(/X-API-Key/);
      }
    }
  });

  it('leaves only documentation, the UI static files and CORS preflight public', async () => {
    const open = server.app.server.routeTable.filter((r) => r.public);
    expect(open.length).toBeGreaterThan(0);
    for (const r of open) {
      if (r.method === 'OPTIONS') continue;
      expect(r.url, r.url).toMatch(/^\/(docs|redoc|openapi\.json|$|index\.html$|assets\/\*$)/);
    }
  });

  it('accepts the right key', async () => {
    const res = await server.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('serves the OpenAPI document, the explorer and ReDoc from local files', async () => {
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const p of [
      '/jobs',
      '/jobs/{job_id}',
      '/jobs/{job_id}/blocks/{block_id}',
      '/jobs/{job_id}/export',
      '/jobs/{job_id}/audit',
      '/health',
    ]) {
      expect(Object.keys(spec.paths)).toContain(p);
    }
    for (const page of ['/docs/', '/redoc']) {
      const res = await fetch(server.url + page);
      expect(res.status, page).toBe(200);
      const html = await res.text();
      const external = [...html.matchAll(/(?:src|href)=["'](https?:)?\/\/([^"'/]+)/g)].map((m) => m[2]);
      expect(external, `${page} loads nothing from other hosts`).toEqual([]);
    }
    const bundle = await fetch(`${server.url}/redoc/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it('answers unknown routes with a JSON 404 once authenticated', async () => {
    const res = await server.call('GET', '/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe('generated key', () => {
  it('is created once with 0600 permissions when SERVICE_API_KEY is unset, and then required', async () => {
    const { statSync, readFileSync } = await import('node:fs');
    const { startServerWithoutKey } = await import('../helpers/app.js');
    const first = await startServerWithoutKey();
    const file = first.app.apiKey.file!;
    expect(file).toBe(`${first.dataDir}/api-key`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8').trim();
    expect(key.length).toBeGreaterThanOrEqual(40);
    expect((await fetch(`${first.url}/health`)).status).toBe(401);
    expect((await fetch(`${first.url}/health`, { headers: { 'x-api-key': key } })).status).toBe(200);
    await first.close();
    const second = await startServerWithoutKey(first.dataDir);
    expect(readFileSync(second.app.apiKey.file!, 'utf8').trim()).toBe(key);
    await second.close();
  });
});

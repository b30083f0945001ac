import { describe, expect, it } from 'vitest';
import { json, startServer } from '../helpers/app.js';
import { useServer } from '../helpers/use-server.js';

// GET/POST /keys and DELETE /keys/{name}: the way `lectern keys` changes keys while a server owns the
// data folder. Admin keys only, and never one limited to some bots or jobs.

const server = useServer(() => startServer({ settings: { workers: 1 } }));

const as = (secret: string, method: string, path: string, body?: unknown) =>
  server.call(method, path, { json: body, headers: { 'x-api-key': secret } });

describe('the keys routes', () => {
  it('create a key whose secret is answered once and works at once, list it without the secret, and revoke it at once', async () => {
    const made = await server.call('POST', '/keys', { json: { name: 'ops-desk', role: 'reviewer' } });
    expect(made.status).toBe(201);
    const key = await json(made);
    expect(key).toMatchObject({ name: 'ops-desk', role: 'reviewer', scope: { bots: [], jobs: [] }, revoked_at: null });
    expect(key.secret).toMatch(/^lk_/);
    expect((await as(key.secret, 'GET', '/jobs')).status).toBe(200);

    const listed = await json(await server.call('GET', '/keys'));
    expect(listed.keys.map((k: { name: string }) => k.name)).toContain('ops-desk');
    expect(JSON.stringify(listed)).not.toContain(key.secret);

    const revoked = await server.call('DELETE', '/keys/ops-desk');
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).revoked_at).not.toBeNull();
    expect((await as(key.secret, 'GET', '/jobs')).status).toBe(401);
  });

  it('refuse a taken name (409), an unknown role or bad name (400), an unknown scope (400) and an unknown key (404)', async () => {
    expect((await server.call('POST', '/keys', { json: { name: 'twice', role: 'reader' } })).status).toBe(201);
    const cases: [unknown, number, string][] = [
      [{ name: 'twice', role: 'reader' }, 409, 'KEY_EXISTS'],
      [{ name: 'x', role: 'boss' }, 400, 'VALIDATION_FAILED'],
      [{ name: 'bad name!', role: 'reader' }, 400, 'VALIDATION_FAILED'],
      [{ name: 'y', role: 'reader', bots: ['no-such-bot'] }, 400, 'VALIDATION_FAILED'],
      [{ name: 'z', role: 'reader', extra: 1 }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await server.call('POST', '/keys', { json: body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await json(res)).error.code).toBe(code);
    }
    const gone = await server.call('DELETE', '/keys/never-made');
    expect(gone.status).toBe(404);
    expect((await json(gone)).error.code).toBe('KEY_NOT_FOUND');
  });

  it('are for unscoped admin keys only: a reviewer and an admin limited to a bot get 403', async () => {
    const bot = (
      await json(await server.call('POST', '/bots', { json: { name: 'b', llm: { provider: 'extractive' } } }))
    ).bot_id as string;
    const reviewer = (await json(await server.call('POST', '/keys', { json: { name: 'rev', role: 'reviewer' } })))
      .secret as string;
    const scopedAdmin = (
      await json(await server.call('POST', '/keys', { json: { name: 'bot-admin', role: 'admin', bots: [bot] } }))
    ).secret as string;
    const admin = (await json(await server.call('POST', '/keys', { json: { name: 'root', role: 'admin' } })))
      .secret as string;
    for (const secret of [reviewer, scopedAdmin]) {
      for (const [method, path, body] of [
        ['GET', '/keys'],
        ['POST', '/keys', { name: 'mine', role: 'admin' }],
        ['DELETE', '/keys/root'],
      ] as const) {
        const res = await as(secret, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((await json(res)).error.code).toBe('FORBIDDEN');
      }
    }
    expect((await as(admin, 'POST', '/keys', { name: 'made-by-root', role: 'reader' })).status).toBe(201);
    expect(
      (await json(await server.call('GET', '/keys'))).keys.find((k: { name: string }) => k.name === 'root').revoked_at,
    ).toBeNull();
  });
});

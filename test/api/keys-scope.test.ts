import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authPlugin } from '../../server/api/plugins/auth.js';
import { errorsPlugin } from '../../server/api/plugins/errors.js';
import { createKeyAuth } from '../../server/core/keys/key-auth.js';
import { createKeysService } from '../../server/core/keys/keys-service.js';
import { openDatabase } from '../../server/store/db.js';
import { createSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import { enc, ingest, json, listPage, repoRoot, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, startServerWithModel, TOPICS_MD } from '../helpers/embed-flow.js';
import { createKey, lecternAsync } from '../helpers/keys-cli.js';
import { storeRows } from '../helpers/server-db.js';

// Scoped keys against the lists, collections and chats of a running server; the audit's reviewer; keys
// created and revoked with the CLI while the server runs; what is stored.

let server: TestServer;
const as = (
  secret: string,
  method: string,
  path: string,
  opts: { json?: unknown; headers?: Record<string, string> } = {},
) => server.call(method, path, { ...opts, headers: { 'x-api-key': secret, ...opts.headers } });

beforeAll(async () => {
  server = await startServerWithModel({ workers: 1 });
});
afterAll(async () => server?.close());

const newBot = async (name: string) =>
  (await json(await server.call('POST', '/bots', { json: { name, llm: { provider: 'extractive' } } })))
    .bot_id as string;

describe('lists under a scope', () => {
  it('GET /jobs, GET /bots and GET /v1/models list only what the key is scoped to; an unscoped key lists everything', async () => {
    const mine = (await ingest(server, 'mine.md', enc('# Mine\n\nIn scope.\n'))).job_id;
    const other = (await ingest(server, 'other.md', enc('# Other\n\nOut of scope.\n'))).job_id;
    const [botMine, botOther] = [await newBot('mine'), await newBot('other')];
    const jobsKey = await createKey(server, 'list-jobs', 'reader', { jobs: [mine] });
    const botsKey = await createKey(server, 'list-bots', 'reader', { bots: [botMine] });
    const both = await createKey(server, 'list-both', 'reader', { jobs: [other], bots: [botOther] });
    const everything = await createKey(server, 'list-all', 'reader');
    const ids = async (secret: string, path: string, field: string) => {
      const body = await json(await as(secret, 'GET', path));
      return ((path.startsWith('/jobs') ? body.jobs : body.items) as Record<string, string>[])
        .map((x) => x[field])
        .sort();
    };
    const models = async (secret: string) =>
      ((await json(await as(secret, 'GET', '/v1/models'))).data as { id: string }[]).map((m) => m.id).sort();

    expect(await ids(jobsKey.secret, '/jobs', 'job_id')).toEqual([mine]);
    expect(await ids(jobsKey.secret, '/bots', 'bot_id')).toEqual([]);
    expect(await models(jobsKey.secret)).toEqual([]);
    expect(await ids(botsKey.secret, '/jobs', 'job_id')).toEqual([]);
    expect(await ids(botsKey.secret, '/bots', 'bot_id')).toEqual([botMine]);
    expect(await models(botsKey.secret)).toEqual([`bot:${botMine}`]);
    expect(await ids(both.secret, '/jobs', 'job_id')).toEqual([other]);
    expect(await ids(both.secret, '/bots', 'bot_id')).toEqual([botOther]);
    const total = (await json(await as(jobsKey.secret, 'GET', '/jobs'))).total;
    expect(total, 'the total counts only what the key sees').toBe(1);
    expect(await ids(everything.secret, '/jobs', 'job_id')).toEqual(expect.arrayContaining([mine, other]));
    expect(await ids(everything.secret, '/bots', 'bot_id')).toEqual(expect.arrayContaining([botMine, botOther]));
    expect(await ids(jobsKey.secret, '/jobs?status=ready_for_review', 'job_id')).toEqual([mine]);
  });
});

describe('collections under a scope', () => {
  it("a collection is searched or embedded into only when every job in it is the key's", async () => {
    const solo = (await finalizedJob(server, 'solo.md', TOPICS_MD)).job_id;
    const shared = (await finalizedJob(server, 'shared.md', TOPICS_MD)).job_id;
    const foreign = (await finalizedJob(server, 'foreign.md', TOPICS_MD)).job_id;
    await embedAndWait(server, solo, { collection_name: 'solo' });
    await embedAndWait(server, shared, { collection_name: 'mixed' });
    await embedAndWait(server, foreign, { collection_name: 'mixed' });
    const k = await createKey(server, 'collections', 'reviewer', { jobs: [solo, shared] });
    const search = async (body: Record<string, unknown>) => {
      const res = await as(k.secret, 'POST', '/search', { json: { query: 'bread dough', top_k: 10, ...body } });
      return { status: res.status, body: await json(res) };
    };

    const own = await search({ collection_name: 'solo' });
    expect(own.status).toBe(200);
    expect(own.body.results.length).toBeGreaterThan(0);
    expect(await search({ collection_name: 'mixed' })).toMatchObject({
      status: 404,
      body: { error: { code: 'COLLECTION_NOT_FOUND' } },
    });
    const oneJob = await search({ job_id: shared });
    expect(oneJob.status).toBe(200);
    expect(new Set(oneJob.body.results.map((r: { job_id: string }) => r.job_id))).toEqual(new Set([shared]));
    expect(await search({ job_id: foreign, collection_name: 'mixed' })).toMatchObject({
      status: 404,
      body: { error: { code: 'JOB_NOT_FOUND' } },
    });

    const intoMixed = await as(k.secret, 'POST', `/jobs/${solo}/embed`, { json: { collection_name: 'mixed' } });
    expect(intoMixed.status).toBe(404);
    expect((await json(intoMixed)).error.code).toBe('COLLECTION_NOT_FOUND');
    // The unscoped service key sees the mixed collection whole.
    expect(
      (await server.call('POST', '/search', { json: { query: 'bread dough', collection_name: 'mixed' } })).status,
    ).toBe(200);
  });
});

describe('named keys with a running server', () => {
  it("records the key's name as the reviewer unless X-Reviewer names one", async () => {
    const job = (await ingest(server, 'audit.md', enc('# Audit\n\nFirst paragraph.\n\nSecond paragraph.\n'))).job_id;
    const k = await createKey(server, 'desk-7', 'reviewer');
    const [first, second] = (await listPage(server, `/jobs/${job}/blocks`)).items as {
      block_id: string;
      version: number;
    }[];
    const patch = (b: { block_id: string; version: number }, headers: Record<string, string> = {}) =>
      as(k.secret, 'PATCH', `/jobs/${job}/blocks/${b.block_id}`, {
        json: { version: b.version, status: 'approved' },
        headers,
      });
    expect((await patch(first!)).status).toBe(200);
    expect((await patch(second!, { 'x-reviewer': 'ada' })).status).toBe(200);
    const audit = (await listPage(server, `/jobs/${job}/audit`)).items as { entity_id: string; reviewer_id: string }[];
    expect(audit.find((r) => r.entity_id === first!.block_id)?.reviewer_id).toBe('desk-7');
    expect(audit.find((r) => r.entity_id === second!.block_id)?.reviewer_id).toBe('ada');
  });

  it('a key made by the CLI works at once, records its last use, and stops at once when revoked; the secret is stored only hashed', async () => {
    const k = await createKey(server, 'short-lived', 'reader');
    expect(k.secret).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect((await as(k.secret, 'GET', '/health')).status).toBe(200);
    // The OpenAI clients' way of sending it works the same.
    expect((await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${k.secret}` } })).status).toBe(
      200,
    );
    const listed = JSON.parse(
      (
        await lecternAsync(['keys', 'list', '--json', '--data-dir', server.dataDir], {
          env: { SERVICE_API_KEY: server.key },
        })
      ).stdout,
    ).keys.find((x: { name: string }) => x.name === 'short-lived');
    expect(listed.last_used_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(k.secret);

    const rows = await storeRows(server.dataDir, 'SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(k.secret);
    expect(rows.find((r) => r.name === 'short-lived')?.hash).toBe(createHash('sha256').update(k.secret).digest('hex'));

    expect(
      (
        await lecternAsync(['keys', 'revoke', 'short-lived', '--data-dir', server.dataDir], {
          env: { SERVICE_API_KEY: server.key },
        })
      ).status,
    ).toBe(0);
    const after = await as(k.secret, 'GET', '/health');
    expect(after.status).toBe(401);
    expect((await json(after)).error.code).toBe('UNAUTHORIZED');
  });
});

describe('a route missing from the access policy', () => {
  it('is for admins only (fail closed)', async () => {
    const database = openDatabase(':memory:', join(repoRoot, 'drizzle'));
    const clock = () => new Date();
    const store = createSqliteStore(database);
    const reviewer = (await createKeysService({ store, clock }).create({ name: 'rev', role: 'reviewer' })).secret;
    const app = Fastify();
    await app.register(errorsPlugin);
    await app.register(authPlugin, {
      auth: createKeyAuth({
        store,
        clock,
        serviceKey: { key: 'service-secret', name: 'service' },
        failuresPerMinute: 10,
      }),
    });
    app.get('/not-in-the-policy', async () => ({ ok: true }));
    app.get('/health', async () => ({ ok: true }));
    const get = (url: string, key: string) => app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    expect((await get('/health', reviewer)).statusCode).toBe(200);
    const refused = await get('/not-in-the-policy', reviewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: { needs: 'admin' } });
    expect((await get('/not-in-the-policy', 'service-secret')).statusCode).toBe(200);
    await app.close();
    database.close();
  });
});

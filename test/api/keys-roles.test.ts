import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_POLICY, accessOf } from '../../server/api/access-policy.js';
import { ROLES, roleAllows, type Role } from '../../server/core/keys/roles.js';
import { SCOPED_FIELDS } from '../../server/core/keys/scope-check.js';
import { enc, ingest, json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { createKey, type CreatedKey } from '../helpers/keys-cli.js';

// Every role and every scope against every route of the running server's route table, with keys made by
// `lectern keys create` against the data folder of that running server.

type Ids = Partial<Record<(typeof SCOPED_FIELDS)[number], string>>;
type ScopeKind = 'all' | 'jobs' | 'bots';
interface Key extends CreatedKey {
  role: Role;
  kind: ScopeKind;
}
interface Route {
  method: string;
  url: string;
}

const NOT_FOUND_CODE: Record<string, string> = {
  job_id: 'JOB_NOT_FOUND',
  bot_id: 'BOT_NOT_FOUND',
  chat_id: 'CHAT_NOT_FOUND',
  session_id: 'SESSION_NOT_FOUND',
  conversation_id: 'CONVERSATION_NOT_FOUND',
};
/** Path parameters no scope limits: any value reaches the route. */
const OTHER_PARAMS: Record<string, string> = {
  block_id: 'b-none',
  chunk_id: 'c-none',
  page: '1',
  message_id: 'm-none',
};

let server: TestServer;
let root = '';
let spec: {
  paths: Record<
    string,
    Record<
      string,
      { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }
    >
  >;
};
const keys: Key[] = [];
/** What each kind of scoped key may see (`inside`), what it may not (`outside`), and ids that do not exist. */
let inside: Record<Exclude<ScopeKind, 'all'>, Ids>;
let outside: Ids;
const ghost: Ids = {
  job_id: 'ghost-job',
  bot_id: 'ghost-bot',
  chat_id: 'ghost-chat',
  session_id: 'ghost-session',
  conversation_id: 'ghost-conversation',
};
let jobA = '';
let jobC = '';
let botB = '';
let botX = '';
let botDoc = '';

const ok = async (res: Response) => {
  if (res.status >= 300) throw new Error(`${res.status}: ${await res.text()}`);
  return json(res);
};

beforeAll(async () => {
  root = tempDir('lectern-keys-roots-');
  writeFileSync(join(root, 'b.md'), '# Bees\n\nBees make honey from the nectar of flowers.\n');
  server = await startServer({ settings: { workers: 1, document_roots: [root] } });
  jobA = (await ingest(server, 'a.md', enc('# Alpha\n\nThe first document, in scope of the jobs keys.\n'))).job_id;
  jobC = (await ingest(server, 'c.md', enc('# Gamma\n\nA document no scoped key may see.\n'))).job_id;
  botB = (await ok(await server.call('POST', '/bots', { json: { name: 'bees', llm: { provider: 'extractive' } } })))
    .bot_id;
  botX = (await ok(await server.call('POST', '/bots', { json: { name: 'other', llm: { provider: 'extractive' } } })))
    .bot_id;
  // review: true keeps the document waiting for a person, so no pipeline runs under the walk.
  botDoc = (
    await ok(
      await server.call('POST', `/bots/${botB}/documents/path`, { json: { path: join(root, 'b.md'), review: true } }),
    )
  ).job_id;
  await server.waitFor(botDoc);
  const chatOf = async (bot: string) => (await ok(await server.call('POST', `/bots/${bot}/chats`))).chat_id as string;
  const sessionOf = async (job: string) =>
    (await ok(await server.call('POST', '/chat/sessions', { json: { job_id: job } }))).session_id as string;
  inside = {
    jobs: { job_id: jobA, session_id: await sessionOf(jobA) },
    bots: { job_id: botDoc, bot_id: botB, chat_id: await chatOf(botB), session_id: await sessionOf(botDoc) },
  };
  outside = { job_id: jobC, bot_id: botX, chat_id: await chatOf(botX), session_id: await sessionOf(jobC) };
  // A conversation is a job's session or a bot's chat (others than those above, so deleting one leaves them).
  inside.jobs.conversation_id = await sessionOf(jobA);
  inside.bots.conversation_id = await chatOf(botB);
  outside.conversation_id = await chatOf(botX);
  for (const role of ROLES) {
    for (const kind of ['all', 'jobs', 'bots'] as const) {
      const scope = kind === 'jobs' ? { jobs: [jobA] } : kind === 'bots' ? { bots: [botB] } : {};
      keys.push({ ...(await createKey(server, `${role}-${kind}`, role, scope)), role, kind });
    }
  }
  spec = await (await fetch(`${server.url}/openapi.json`)).json();
});
afterAll(async () => server?.close());

const apiRoutes = (): Route[] => server.app.server.routeTable.filter((r) => !r.public);
const key = (role: Role, kind: ScopeKind) => keys.find((k) => k.role === role && k.kind === kind)!;

/** The JSON body fields of a route, from its OpenAPI request body; null when it takes no JSON body. */
function bodyFields(r: Route): string[] | null {
  const op = spec.paths[r.url.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
  const schema = op?.requestBody?.content?.['application/json']?.schema;
  return schema ? Object.keys(schema.properties ?? {}) : null;
}

/**
 * The scoped fields a route names, in the order they are checked: path parameters, body fields, then body
 * fields the policy names as aliases. Collections are left to their own test (no collection exists here).
 */
function routeIds(r: Route): string[] {
  const params = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const body = bodyFields(r) ?? [];
  const order = (names: string[]) => SCOPED_FIELDS.filter((f) => f !== 'collection_name' && names.includes(f));
  const aliased = Object.entries(accessOf(r.method, r.url)?.aliases ?? {}).flatMap(([name, a]) =>
    body.includes(name) ? [a.field] : [],
  );
  return [...order(params), ...order(body), ...aliased];
}

/** A JSON body naming `ids` in the fields the route has for them (aliases with their prefix). */
function bodyFor(r: Route, fields: string[], ids: Ids): Record<string, string> {
  const of = ids as Record<string, string>;
  const body: Record<string, string> = Object.fromEntries(fields.flatMap((f) => (of[f] ? [[f, of[f]]] : [])));
  for (const [name, a] of Object.entries(accessOf(r.method, r.url)?.aliases ?? {}))
    if (fields.includes(name) && of[a.field]) body[name] = `${a.prefix ?? ''}${of[a.field]}`;
  return body;
}

async function send(
  k: { secret: string },
  r: Route,
  ids: Ids,
): Promise<{ status: number; code?: string; message?: string }> {
  const path = r.url.replace(/:(\w+)/g, (_, p: string) =>
    encodeURIComponent((ids as Record<string, string>)[p] ?? OTHER_PARAMS[p] ?? 'x'),
  );
  const fields = bodyFields(r);
  const headers: Record<string, string> = { 'x-api-key': k.secret };
  let body: string | undefined;
  if (fields) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(bodyFor(r, fields, ids));
  }
  const res = await fetch(server.url + path, { method: r.method, headers, body });
  if (!res.headers.get('content-type')?.includes('application/json')) {
    await res.body?.cancel();
    return { status: res.status };
  }
  const answer = await res.json();
  return { status: res.status, code: answer?.error?.code, message: answer?.error?.message };
}

const label = (k: Key, r: Route, what: string) => `${k.name} ${r.method} ${r.url} (${what})`;

describe('the access policy', () => {
  it('has an entry for every API route of the route table, and none for a route that does not exist', () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const missing = routes.filter((r) => !accessOf(r.method, r.url)).map((r) => `${r.method} ${r.url}`);
    expect(missing, 'add these routes to ACCESS_POLICY in server/api/access-policy.ts').toEqual([]);
    const listed = new Set(routes.map((r) => `${r.method} ${r.url}`));
    expect(Object.keys(ACCESS_POLICY).filter((k) => !listed.has(k))).toEqual([]);
  });

  it('lets only an admin delete and manage keys, a reviewer change content, and a reader read, search and chat', () => {
    for (const [route, rule] of Object.entries(ACCESS_POLICY)) {
      if (route.startsWith('DELETE ') || / \/keys\b/.test(route)) expect(rule.role, route).toBe('admin');
      else if (route.startsWith('GET ')) expect(rule.role, route).toBe('reader');
    }
    for (const route of [
      'POST /search',
      'POST /chat',
      'POST /chat/sessions',
      'POST /bots/:bot_id/chats/:chat_id',
      'POST /bots/:bot_id/vectorstore',
    ]) {
      expect(ACCESS_POLICY[route as keyof typeof ACCESS_POLICY].role, route).toBe('reader');
    }
    for (const route of [
      'PATCH /jobs/:job_id/blocks/:block_id',
      'POST /jobs/:job_id/finalize',
      'POST /chat/resume',
      'POST /jobs',
      'POST /jobs/:job_id/embed',
    ]) {
      expect(ACCESS_POLICY[route as keyof typeof ACCESS_POLICY].role, route).toBe('reviewer');
    }
  });
});

describe('every role and scope against every route', () => {
  it('unscoped keys: 403 FORBIDDEN exactly where the role is too weak, the route answers otherwise', async () => {
    for (const r of apiRoutes()) {
      const rule = accessOf(r.method, r.url)!;
      for (const role of ROLES) {
        const k = key(role, 'all');
        const got = await send(k, r, ghost);
        expect(got.status, label(k, r, JSON.stringify(got))).not.toBe(401);
        if (roleAllows(role, rule.role)) {
          expect(got.code, label(k, r, 'allowed')).not.toBe('FORBIDDEN');
        } else {
          expect(got, label(k, r, 'too weak')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
          expect(got.message).toContain(`needs the ${rule.role} role`);
        }
      }
    }
  });

  it('scoped keys: what lies outside the scope answers 404 as if it did not exist; routes that make unscoped things 403', async () => {
    let scopedNotFound = 0;
    for (const r of apiRoutes()) {
      const rule = accessOf(r.method, r.url)!;
      const ids = routeIds(r);
      for (const k of keys.filter((x) => x.kind !== 'all')) {
        const got = await send(k, r, outside);
        if (!roleAllows(k.role, rule.role) || rule.scoped === 'refused') {
          expect(got, label(k, r, 'refused')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
        } else if (ids.length > 0) {
          expect(got, label(k, r, `outside: ${ids[0]}`)).toMatchObject({ status: 404, code: NOT_FOUND_CODE[ids[0]!] });
          scopedNotFound += 1;
        } else {
          expect(got.status, label(k, r, 'names nothing scoped')).toBe(200);
        }
      }
    }
    expect(scopedNotFound).toBeGreaterThan(60);
  });

  it('scoped keys: what lies inside the scope reaches the route (deletes last)', async () => {
    const deferred: [Key, Route][] = [];
    let reached = 0;
    for (const r of apiRoutes()) {
      const rule = accessOf(r.method, r.url)!;
      const ids = routeIds(r);
      for (const k of keys.filter((x) => x.kind !== 'all')) {
        const mine = inside[k.kind as 'jobs' | 'bots'];
        if (ids.some((f) => !(mine as Record<string, string>)[f])) continue; // e.g. bot routes for a jobs key: nothing of it is inside
        const allowed = roleAllows(k.role, rule.role) && rule.scoped !== 'refused';
        if (allowed && r.method === 'DELETE') {
          deferred.push([k, r]);
          continue;
        }
        const got = await send(k, r, mine);
        if (!allowed) {
          expect(got, label(k, r, 'refused')).toMatchObject({ status: 403, code: 'FORBIDDEN' });
          continue;
        }
        expect(got.status, label(k, r, JSON.stringify(got))).not.toBe(401);
        expect(got.code, label(k, r, 'inside')).not.toBe('FORBIDDEN');
        if (ids.length) expect(got.code, label(k, r, `inside: ${ids[0]}`)).not.toBe(NOT_FOUND_CODE[ids[0]!]);
        reached += 1;
      }
    }
    expect(reached).toBeGreaterThan(60);
    // A chat session before its job, a job before its bot: deleting a job takes its sessions, a bot its documents.
    const order = (url: string) =>
      url.startsWith('/chat/sessions') || url.startsWith('/conversations') ? 0 : url.startsWith('/bots') ? 2 : 1;
    deferred.sort(([, a], [, b]) => order(a.url) - order(b.url));
    expect(deferred.map(([k, r]) => `${k.name} ${r.method} ${r.url}`).sort()).toEqual([
      'admin-bots DELETE /bots/:bot_id',
      'admin-bots DELETE /chat/sessions/:session_id',
      'admin-bots DELETE /conversations/:conversation_id',
      'admin-bots DELETE /jobs/:job_id',
      'admin-jobs DELETE /chat/sessions/:session_id',
      'admin-jobs DELETE /conversations/:conversation_id',
      'admin-jobs DELETE /jobs/:job_id',
    ]);
    for (const [k, r] of deferred) {
      const got = await send(k, r, inside[k.kind as 'jobs' | 'bots']);
      expect(got.status, label(k, r, JSON.stringify(got))).toBeLessThan(300);
    }
    expect((await server.call('GET', `/jobs/${jobA}`)).status).toBe(404);
    expect((await server.call('GET', `/bots/${botB}`)).status).toBe(404);
    expect((await server.call('GET', `/jobs/${jobC}`)).status).toBe(200);
  });
});

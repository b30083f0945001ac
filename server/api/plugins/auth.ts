import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../core/errors.js';
import type { KeyAuth } from '../../core/keys/key-auth.js';
import { roleAllows, type Identity } from '../../core/keys/roles.js';
import { accessOf, aliasedIds } from '../access-policy.js';
import { declareErrors } from './errors.js';

export interface RouteEntry {
  method: string;
  url: string;
  public: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered after this plugin, with whether it skips the key check. */
    routeTable: RouteEntry[];
  }
  interface FastifyRequest {
    /** Who acts, for audit records: the X-Reviewer header, else the API key's name. */
    reviewer: string;
    /** The key's name, role and scope; null on public routes. List routes filter by `access.scope`. */
    access: Identity | null;
  }
  interface FastifyContextConfig {
    /** Documentation and the UI's static files are public; every API route is not. */
    public?: boolean;
  }
}

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
/** The key as OpenAI clients send it (`Authorization: Bearer <key>`), for callers that cannot set X-API-Key. */
const bearerOf = (v: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(v ?? '')?.[1];

/**
 * Requires X-API-Key on every route not marked public: the service key (admin) or a named key
 * (`lectern keys`). Then the route's entry in the access policy decides by role (403 FORBIDDEN), and a
 * scoped key's ids are checked against its scope, path and query at once, the body once it is parsed (404
 * as for what does not exist). Wrong keys are rate-limited per client address (429 RATE_LIMITED).
 */
export const authPlugin = fp(async (app: FastifyInstance, { auth }: { auth: KeyAuth }) => {
  app.decorateRequest('reviewer', '');
  app.decorateRequest('access', null);
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    // The explorer's own routes (registered by @fastify/swagger-ui) are documentation, not API.
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, public: true };
    const isPublic = Boolean((route.config as { public?: boolean } | undefined)?.public);
    for (const method of [route.method].flat())
      if (method !== 'HEAD') table.push({ method, url: route.url, public: isPublic });
    // Every key-checked route may answer these; the OpenAPI document says so without each route repeating it.
    if (!isPublic) declareErrors(route, 403, 429);
  });

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.routeOptions.config?.public) return;
    let who: Identity;
    try {
      who = await auth.identify(headerValue(req.headers['x-api-key']) ?? bearerOf(req.headers.authorization), req.ip);
    } catch (err) {
      const wait = (err as { code?: string; details?: { retry_after_s?: number } }).details?.retry_after_s;
      if (wait !== undefined) reply.header('retry-after', String(wait));
      throw err;
    }
    req.access = who;
    req.reviewer = headerValue(req.headers['x-reviewer'])?.trim().slice(0, 200) || who.name;
    const url = req.routeOptions.url;
    if (url === undefined) return; // no such route: the not-found handler answers
    // A route missing from the policy is admin-only until someone decides (fail closed).
    const rule = accessOf(req.method, url) ?? { role: 'admin' };
    if (!roleAllows(who.role, rule.role)) {
      throw new AppError(
        'FORBIDDEN',
        `key ${who.name} (${who.role}) cannot ${req.method} ${url}: it needs the ${rule.role} role`,
        { role: who.role, needs: rule.role },
      );
    }
    if (!who.scope) return;
    if (rule.scoped === 'refused')
      throw new AppError(
        'FORBIDDEN',
        `key ${who.name} is limited to some bots or jobs and cannot ${req.method} ${url}`,
      );
    await auth.scopes.check(who.scope, req.params);
    await auth.scopes.check(who.scope, req.query);
  });

  // Before validation: an id outside the scope is a 404 whatever else the body gets wrong.
  app.addHook('preValidation', async (req: FastifyRequest) => {
    if (!req.access?.scope) return;
    await auth.scopes.check(req.access.scope, req.body);
    const rule = req.routeOptions.url === undefined ? undefined : accessOf(req.method, req.routeOptions.url);
    if (rule) await auth.scopes.check(req.access.scope, aliasedIds(rule, req.body));
  });
});

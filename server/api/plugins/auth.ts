import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../core/errors.js';
import { keyMatches, type ApiKey } from '../../store/api-key.js';

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
  }
  interface FastifyContextConfig {
    /** Documentation and the UI's static files are public; every API route is not. */
    public?: boolean;
  }
}

/** Requires X-API-Key on every route not marked public, compared in constant time. */
export const authPlugin = fp(async (app: FastifyInstance, { apiKey }: { apiKey: ApiKey }) => {
  app.decorateRequest('reviewer', '');
  // The explorer's own routes (registered by @fastify/swagger-ui) are documentation, not API.
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...route.config, public: true };
    const isPublic = Boolean((route.config as { public?: boolean } | undefined)?.public);
    for (const method of [route.method].flat()) if (method !== 'HEAD') table.push({ method, url: route.url, public: isPublic });
  });
  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (req.routeOptions.config?.public) return;
    // OpenAI clients send the key as `Authorization: Bearer <key>`.
    const given = req.headers['x-api-key'] ?? /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!keyMatches(apiKey.key, Array.isArray(given) ? given[0] : given)) {
      throw new AppError('UNAUTHORIZED', given ? 'the X-API-Key header does not match' : 'send the API key in the X-API-Key header');
    }
    const named = req.headers['x-reviewer'];
    const reviewer = (Array.isArray(named) ? named[0] : named)?.trim().slice(0, 200);
    req.reviewer = reviewer || apiKey.name;
  });
});

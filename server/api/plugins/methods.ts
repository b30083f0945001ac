import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../core/errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The methods a concrete path has (HEAD with GET, OPTIONS everywhere), upper case and sorted; empty for an unknown path. */
    methodsOf(path: string): string[];
  }
}

interface PathMethods {
  pattern: RegExp;
  /** Segments written out (`jobs`, `review`): the router prefers them to parameters. */
  literal: number;
  methods: Set<string>;
}

/** A route URL as the router writes it (`/jobs/:job_id`, `/assets/*`) as a regular expression for paths. */
function patternOf(url: string): RegExp {
  const parts = url
    .split(/(:[A-Za-z_][\w-]*|\*)/)
    .map((p) => (p === '*' ? '.*' : p.startsWith(':') ? '[^/]+' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/**
 * A known path asked with a method it does not have answers 405 METHOD_NOT_ALLOWED with an Allow header
 * (RFC 9110), not 404: Fastify routes by method first and would call the path unknown. Only paths no
 * route has stay 404. Runs after the key check, like every other answer about a route.
 */
export const methodsPlugin = fp(async (app: FastifyInstance) => {
  const paths: PathMethods[] = [];
  app.addHook('onRoute', (route) => {
    // The OPTIONS catch-all (CORS preflights) is not a path of its own: it is added to every known path below.
    if (route.url === '*') return;
    const pattern = patternOf(route.url);
    let entry = paths.find((p) => p.pattern.source === pattern.source);
    const literal = route.url.split('/').filter((seg) => seg && !seg.startsWith(':') && seg !== '*').length;
    if (!entry) paths.push((entry = { pattern, literal, methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
  });

  app.decorate('methodsOf', (path: string): string[] => {
    const matching = paths.filter((p) => p.pattern.test(path));
    if (matching.length === 0) return [];
    // `/jobs/x/blocks/review` is the review route's path, not block "review": the most literal routes decide.
    const most = Math.max(...matching.map((p) => p.literal));
    const methods = new Set(matching.filter((p) => p.literal === most).flatMap((p) => [...p.methods]));
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods].sort();
  });

  app.addHook('onRequest', async (req, reply) => {
    if (!req.is404) return;
    const path = req.url.split('?')[0] ?? '';
    const allowed = app.methodsOf(path);
    if (allowed.length === 0) return;
    reply.header('allow', allowed.join(', '));
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `${req.method} is not a method of ${path.slice(0, 200)}: use ${allowed.join(', ')}`,
      { allowed },
    );
  });
});

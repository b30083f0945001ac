import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The desktop window's origin. Electron loads the UI from the privileged `lectern:` scheme
 * (main/app-protocol.ts) rather than from a file URL, whose origin is the opaque "null" that every
 * sandboxed iframe and data: page shares: a web site can present "null", never `lectern://app`.
 */
export const DESKTOP_ORIGIN = 'lectern://app';

const ALLOWED_HEADERS = 'x-api-key, x-reviewer, content-type';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/**
 * CORS for exactly one origin, the desktop window's; every other origin (web sites, "null", file URLs)
 * gets no CORS headers, so browsers keep their pages from reading the API. The browser UI at `/` is
 * same-origin and needs none. Preflights are public (they carry no key); the key guards every API route.
 * Needs methodsPlugin registered.
 */
export const corsPlugin = fp(async (app: FastifyInstance, { origin }: { origin: string }) => {
  const fromDesktop = (req: FastifyRequest): boolean => req.headers.origin === origin;

  // Set as the request arrives, so that errors carry them too and streams (openSse) copy them.
  app.addHook('onRequest', async (req, reply) => {
    // Caches must not hand a desktop answer to another origin, or the reverse.
    reply.header('vary', 'Origin');
    if (fromDesktop(req)) {
      reply.header('access-control-allow-origin', origin);
      // The list routes' paging is in headers (X-Total-Count, Link): the window must be let to read them.
      reply.header('access-control-expose-headers', 'content-disposition, x-total-count, link');
    }
  });

  // OPTIONS on any known path: its methods in Allow, and for the desktop window a CORS preflight answer.
  app.options('*', { schema: { hide: true }, config: { public: true } }, async (req, reply) => {
    const allowed = app.methodsOf(req.url.split('?')[0] ?? '');
    if (allowed.length === 0) return reply.callNotFound();
    reply.header('allow', allowed.join(', '));
    if (!fromDesktop(req)) return reply.status(204).send();
    return reply
      .status(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header('access-control-allow-headers', ALLOWED_HEADERS)
      .header('access-control-max-age', '600')
      .send();
  });
});

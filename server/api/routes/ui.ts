import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { findAppRoot } from '../../store/app-paths.js';

/** Where electron-vite writes the renderer; the same files Electron's window loads (main/app-protocol.ts). */
export const defaultUiDir = (): string => join(findAppRoot(), 'out', 'renderer');

export const MIME: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

/** The CSP the page declares in its meta tag, sent as a header too so both always agree. */
export function cspOf(html: string): string | undefined {
  return /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1];
}

/**
 * Serves the built review UI at `/` (index.html) and `/assets/*` for browsers, both public: the page asks
 * for the API key itself. (The desktop window loads the same files from its own scheme: plugins/cors.ts.)
 */
export const uiRoutes = fp(async (app: FastifyInstance, opts: { dir?: string }) => {
  const dir = resolve(opts.dir ?? defaultUiDir());
  const assets = join(dir, 'assets');

  const sendIndex = async (_req: FastifyRequest, reply: FastifyReply) => {
    let html: string;
    try {
      html = await readFile(join(dir, 'index.html'), 'utf8');
    } catch {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The review UI is not built: run `npm run build`. The API answers as usual.');
    }
    const csp = cspOf(html);
    if (csp) reply.header('content-security-policy', csp);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(html);
  };
  app.get('/', { schema: { hide: true }, config: { public: true } }, sendIndex);
  app.get('/index.html', { schema: { hide: true }, config: { public: true } }, sendIndex);

  app.get<{ Params: { '*': string } }>(
    '/assets/*',
    { schema: { hide: true }, config: { public: true } },
    async (req, reply) => {
      const file = resolve(assets, req.params['*']);
      // Only files inside the assets folder: a path with `..` resolves outside it and is a 404.
      const type = MIME[extname(file)];
      if (!file.startsWith(assets + sep) || !type) return reply.callNotFound();
      let data: Buffer;
      try {
        data = await readFile(file);
      } catch {
        return reply.callNotFound();
      }
      // Vite puts a content hash in every asset name, so an asset never changes under its name.
      return reply
        .type(type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(data);
    },
  );
});

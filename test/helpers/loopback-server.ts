import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request's body parsed as JSON. */
export async function readJson(req: IncomingMessage): Promise<any> {
  let raw = '';
  for await (const part of req) raw += String(part);
  return JSON.parse(raw);
}

export interface LoopbackServer {
  url: string;
  /** TCP connections accepted so far: 0 proves a refused request never reached the server. */
  connections(): number;
  close(): Promise<void>;
}

/** An HTTP server on a free loopback port; `close` stops it, then releases what `release` holds. */
export async function listenOnLoopback(
  handler: RequestListener,
  release: () => Promise<void> = async () => {},
): Promise<LoopbackServer> {
  const server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    async close() {
      // Also ends connections a test left hanging (a server that never answers), which close() waits for.
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      await release();
    },
  };
}

/** A listener no policy allows, and a site (for the policy to allow) that redirects every request into it. */
export interface RedirectToPrivate {
  privateListener: LoopbackServer;
  redirector: LoopbackServer;
  close(): Promise<void>;
}

/**
 * Starts both: a guarded fetch sent to the redirector must refuse the hop, and the listener's `connections()` proves
 * that nothing reached it.
 */
export async function startRedirectToPrivate(): Promise<RedirectToPrivate> {
  const privateListener = await listenOnLoopback((_req, res) => res.end('private'));
  const redirector = await listenOnLoopback((_req, res) =>
    res.writeHead(302, { location: `${privateListener.url}/inside` }).end(),
  );
  return {
    privateListener,
    redirector,
    async close() {
      await Promise.all([redirector.close(), privateListener.close()]);
    },
  };
}

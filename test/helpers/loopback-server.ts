import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request's body parsed as JSON. */
export async function readJson(req: IncomingMessage): Promise<any> {
  let raw = '';
  for await (const part of req) raw += String(part);
  return JSON.parse(raw);
}

/** An HTTP server on a free loopback port; `close` stops it, then releases what `release` holds. */
export async function listenOnLoopback(handler: RequestListener, release: () => Promise<void>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise((ok) => server.close(ok));
      await release();
    },
  };
}

import { createServer, type Server } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../main/loopback-listen.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function holdPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, server }));
  });
}

describe('listenOnLoopback', () => {
  it('binds a free port on 127.0.0.1 when none is preferred', async () => {
    const app = Fastify();
    closers.push(() => app.close());
    const { url, port } = await listenOnLoopback(app);
    expect(port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(app.server.address()).toMatchObject({ address: '127.0.0.1', port });
  });

  it('takes the preferred port when it is free', async () => {
    const held = await holdPort();
    await new Promise((r) => held.server.close(r));
    const app = Fastify();
    closers.push(() => app.close());
    expect((await listenOnLoopback(app, held.port)).port).toBe(held.port);
  });

  it('falls back to another free port when the preferred one is taken', async () => {
    const held = await holdPort();
    closers.push(() => new Promise((r) => held.server.close(r)));
    const app = Fastify();
    closers.push(() => app.close());
    const { port } = await listenOnLoopback(app, held.port);
    expect(port).not.toBe(held.port);
    expect(port).toBeGreaterThan(0);
  });

  it('refuses a listener that bound anything but the loopback address', async () => {
    const fake = { listen: async () => 'http://0.0.0.0:1234' };
    await expect(listenOnLoopback(fake)).rejects.toThrow(/not the loopback/);
  });

  it('passes other listen errors through', async () => {
    const fake = { listen: async () => Promise.reject(Object.assign(new Error('denied'), { code: 'EACCES' })) };
    await expect(listenOnLoopback(fake, 80)).rejects.toThrow('denied');
  });
});

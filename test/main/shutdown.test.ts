import { describe, expect, it } from 'vitest';
import { createShutdown } from '../../main/shutdown.js';
import { startServer } from '../helpers/app.js';

describe('createShutdown', () => {
  it('runs every step once, in order, however often it is called', async () => {
    const ran: string[] = [];
    const shutdown = createShutdown([
      { name: 'server', run: async () => void ran.push('server') },
      { name: 'pool', run: async () => void ran.push('pool') },
    ]);
    const [a, b] = await Promise.all([shutdown(), shutdown()]);
    await shutdown();
    expect(ran).toEqual(['server', 'pool']);
    expect(a).toBe(b);
    expect(a.failed).toEqual([]);
  });

  it('goes on after a failing or hung step and reports both', async () => {
    const ran: string[] = [];
    const shutdown = createShutdown(
      [
        { name: 'broken', run: async () => Promise.reject(new Error('boom')) },
        { name: 'hung', run: () => new Promise<void>(() => undefined) },
        { name: 'db', run: async () => void ran.push('db') },
      ],
      50,
    );
    const report = await shutdown();
    expect(ran).toEqual(['db']);
    expect(report.failed).toEqual([
      { name: 'broken', reason: 'boom' },
      { name: 'hung', reason: 'timed out after 50 ms' },
    ]);
  });

  it('closes the real server and its worker pool', async () => {
    const server = await startServer();
    expect((await server.call('GET', '/health')).status).toBe(200);
    const http = (server.app as unknown as { server: { server: { listening: boolean } } }).server.server;
    const report = await createShutdown([{ name: 'lectern', run: () => server.app.close() }], 10_000)();
    expect(report.failed).toEqual([]);
    expect(http.listening).toBe(false);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});

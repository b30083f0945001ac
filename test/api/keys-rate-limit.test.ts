import { describe, expect, it } from 'vitest';
import { json, startServer } from '../helpers/app.js';
import { createKey } from '../helpers/keys-cli.js';
import { useServer } from '../helpers/use-server.js';

// The real server with the default limit: 10 wrong keys a minute per client address.

const server = useServer(() => startServer({ settings: { workers: 1 } }));

const health = (headers: Record<string, string>) => fetch(`${server.url}/health`, { headers });

describe('failed key checks', () => {
  it('requests without a key guess nothing and are not counted', async () => {
    for (let i = 0; i < 15; i++) expect((await health({})).status).toBe(401);
    expect((await health({ 'x-api-key': server.key })).status).toBe(200);
  });

  it('after 10 wrong keys a client gets 429 RATE_LIMITED with Retry-After, even with the right key', async () => {
    const reader = await createKey(server, 'patient', 'reader');
    for (let i = 0; i < 10; i++) {
      // Wrong service keys and wrong named keys count alike; a right key between them does not reset the count.
      const res = await health({ 'x-api-key': i % 2 ? `wrong-${i}` : `lk_${'A'.repeat(43)}` });
      expect(res.status, `attempt ${i + 1}`).toBe(401);
      if (i === 5) expect((await health({ 'x-api-key': reader.secret })).status).toBe(200);
    }
    for (const key of ['wrong-again', server.key, reader.secret]) {
      const res = await health({ 'x-api-key': key });
      expect(res.status, key).toBe(429);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = await json(res);
      expect(body.error.code).toBe('RATE_LIMITED');
      expect(body.error.details.retry_after_s).toBe(retryAfter);
    }
    // Public routes stay open: the documentation needs no key.
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
  });
});

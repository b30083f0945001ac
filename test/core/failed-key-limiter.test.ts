import { describe, expect, it } from 'vitest';
import { clientOf, createFailedKeyLimiter } from '../../server/core/keys/failed-key-limiter.js';

const clockAt = (start = 1_000_000) => {
  const c = { t: start, now: () => c.t };
  return c;
};

describe('failed key limiter', () => {
  it('blocks a client after `limit` failures until its window ends, then lets it try again', () => {
    const clock = clockAt();
    const limiter = createFailedKeyLimiter({ limit: 3, windowMs: 60_000, now: clock.now });
    for (let i = 0; i < 2; i++) limiter.fail('a');
    expect(limiter.blockedFor('a')).toBe(0);
    clock.t += 10_000;
    limiter.fail('a');
    expect(limiter.blockedFor('a')).toBe(50_000);
    expect(limiter.blockedFor('b'), 'other clients are not affected').toBe(0);
    clock.t += 49_999;
    expect(limiter.blockedFor('a')).toBe(1);
    clock.t += 1;
    expect(limiter.blockedFor('a')).toBe(0);
    // A new window starts from the next failure.
    limiter.fail('a');
    expect(limiter.blockedFor('a')).toBe(0);
  });

  it('keeps at most maxClients windows, dropping the oldest first', () => {
    const clock = clockAt();
    const limiter = createFailedKeyLimiter({ limit: 1, windowMs: 60_000, now: clock.now, maxClients: 100 });
    for (let i = 0; i < 1000; i++) {
      clock.t += 1;
      limiter.fail(`10.0.${Math.floor(i / 256)}.${i % 256}`);
    }
    expect(limiter.size).toBe(100);
    expect(limiter.blockedFor('10.0.0.0'), 'the oldest was dropped').toBe(0);
    expect(limiter.blockedFor('10.0.3.231'), 'the newest is kept').toBeGreaterThan(0);
  });

  it('counts an IPv6 client by its /64 and an IPv4 client (also IPv4-mapped) by its address', () => {
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe(clientOf('2001:db8:1:2:bbbb::2'));
    expect(clientOf('2001:db8:1:2::1')).not.toBe(clientOf('2001:db8:1:3::1'));
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('192.0.2.7')).not.toBe(clientOf('192.0.2.8'));
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
  });
});

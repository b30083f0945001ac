import ipaddr from 'ipaddr.js';

/**
 * The address failures are counted under: an IPv6 client's /64 (one host usually holds a whole /64 and
 * could otherwise take a fresh address for every ten guesses), an IPv4 address as it is.
 */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address); // ::ffff:a.b.c.d becomes a.b.c.d
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${(ip as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}

/**
 * Counts failed key checks per client address in fixed windows: once a client has `limit` failures in a
 * window, every request it sends answers 429 until the window ends, without any key being compared.
 * A correct key does not reset the count: otherwise anyone holding a weak key could interleave it with
 * guesses at a stronger one. Memory is bounded by `maxClients`: the oldest windows are dropped first.
 */
export interface FailedKeyLimiter {
  /** Milliseconds the client must still wait; 0 when it may try. */
  blockedFor(client: string): number;
  /** Records one failed check. */
  fail(client: string): void;
  /** Clients currently tracked (for tests of the bound). */
  readonly size: number;
}

export interface FailedKeyLimiterOptions {
  limit: number;
  windowMs: number;
  /** Milliseconds since the epoch; injected so tests can move time. */
  now: () => number;
  maxClients?: number;
}

export function createFailedKeyLimiter({
  limit,
  windowMs,
  now,
  maxClients = 10_000,
}: FailedKeyLimiterOptions): FailedKeyLimiter {
  // Insertion order is window-start order (a new window re-inserts its client), so the first entries
  // are always the first to expire.
  const windows = new Map<string, { failures: number; endsAt: number }>();

  // Oldest window first: expired entries go before live ones.
  function makeRoom(): void {
    for (const client of windows.keys()) {
      if (windows.size < maxClients) return;
      windows.delete(client);
    }
  }

  return {
    blockedFor(client) {
      const w = windows.get(client);
      if (!w || w.failures < limit) return 0;
      return Math.max(0, w.endsAt - now());
    },
    fail(client) {
      const t = now();
      const w = windows.get(client);
      if (w && w.endsAt > t) {
        w.failures += 1;
        return;
      }
      windows.delete(client);
      makeRoom();
      windows.set(client, { failures: 1, endsAt: t + windowMs });
    },
    get size() {
      return windows.size;
    },
  };
}

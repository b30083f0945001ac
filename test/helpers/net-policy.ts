import type { NetPolicy } from '../../server/core/net/types.js';

/**
 * The guard's policy for a test of a source reader: the hosts of the local servers at `urls` allowed, a short
 * connect timeout (they answer at once), room enough for whole documents.
 */
export function readerPolicy(...urls: string[]): NetPolicy {
  return {
    allowedPrivateHosts: urls.map((url) => new URL(url).host),
    connectTimeoutMs: 2000,
    totalTimeoutMs: 10000,
    maxBytes: 20 << 20,
    maxRedirects: 5,
  };
}

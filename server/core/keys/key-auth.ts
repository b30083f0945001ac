import type { ApiKey } from '../../store/api-key.js';
import { keyMatches } from '../../store/api-key.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { clientOf, createFailedKeyLimiter } from './failed-key-limiter.js';
import { createKeysService } from './keys-service.js';
import type { Identity } from './roles.js';
import { createScopeCheck } from './scope-check.js';

export interface KeyAuthDeps {
  store: Store;
  clock: Clock;
  /** SERVICE_API_KEY or the data folder's generated key: always admin, sees everything. */
  serviceKey: ApiKey;
  /** Failed key checks a client may make in a minute before it is refused for the rest of that minute. */
  failuresPerMinute: number;
}

/**
 * Tells who sends a request from its X-API-Key: the service key, or a named key looked up in the store on
 * every request (so a revoked key stops working at once; one indexed read). Failed checks are counted
 * per client, and a client over the limit gets 429 RATE_LIMITED before any key is compared.
 */
export function createKeyAuth({ store, clock, serviceKey, failuresPerMinute }: KeyAuthDeps) {
  const keys = createKeysService({ store, clock });
  const limiter = createFailedKeyLimiter({ limit: failuresPerMinute, windowMs: 60_000, now: () => clock().getTime() });
  return {
    scopes: createScopeCheck(store),
    /** The sender's identity; throws UNAUTHORIZED, or RATE_LIMITED with `details.retry_after_s`. */
    async identify(given: string | undefined, address: string): Promise<Identity> {
      const client = clientOf(address);
      const waitMs = limiter.blockedFor(client);
      if (waitMs > 0) {
        const retryAfter = Math.ceil(waitMs / 1000);
        throw new AppError('RATE_LIMITED', `too many wrong API keys from ${client}; try again in ${retryAfter} s`, {
          retry_after_s: retryAfter,
        });
      }
      // No key is no guess: only wrong keys count against the client.
      if (!given) throw new AppError('UNAUTHORIZED', 'send the API key in the X-API-Key header');
      if (keyMatches(serviceKey.key, given)) return { name: serviceKey.name, role: 'admin', scope: null };
      const named = await keys.find(given);
      if (named) return named;
      limiter.fail(client);
      throw new AppError('UNAUTHORIZED', 'the X-API-Key header does not match');
    },
  };
}
export type KeyAuth = ReturnType<typeof createKeyAuth>;

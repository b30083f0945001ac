import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { KeyView } from '../../store/repos/keys-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { isRole, isScoped, ROLES, type Identity, type KeyScope, type Role } from './roles.js';

export type { KeyView };

/** Secrets start with this, so they are recognisable in a config file or a leak scanner. */
const SECRET_PREFIX = 'lk_';
/** Characters of the secret shown in listings: enough to tell keys apart, far too few to guess the rest. */
const SHOWN_CHARS = SECRET_PREFIX.length + 8;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The names the service key is recorded under in audits (SERVICE_API_KEY, or the data folder's key). */
const RESERVED_KEY_NAMES = ['service', 'local'];
/** last_used_at is written at most this often per key: a write per request would be a write per poll. */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface NewKey {
  name: string;
  role: string;
  bots?: string[];
  jobs?: string[];
}

/**
 * The 32 random bytes of a secret make a fast hash as safe as a slow one (there is nothing to guess from
 * it); slow hashes are for passwords people choose. A fast hash also lets the server look a key up by
 * its hash, one indexed read per request, instead of running scrypt against every key.
 */
const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const uniqueSorted = (ids: string[] | undefined): string[] =>
  [...new Set((ids ?? []).map((s) => s.trim()).filter(Boolean))].sort();

/** Named API keys: created with a secret shown once, listed, revoked, and found by secret. */
export function createKeysService({ store, clock }: { store: Store; clock: Clock }) {
  async function checkNew(k: NewKey): Promise<{ role: Role; scope: KeyScope }> {
    if (!NAME_PATTERN.test(k.name)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `key name "${k.name}" must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
      );
    }
    if (RESERVED_KEY_NAMES.includes(k.name.toLowerCase()))
      throw new AppError('VALIDATION_FAILED', `key name "${k.name}" is the service key's name in audits`);
    if (!isRole(k.role)) throw new AppError('VALIDATION_FAILED', `role "${k.role}" is not one of ${ROLES.join(', ')}`);
    const scope = { bots: uniqueSorted(k.bots), jobs: uniqueSorted(k.jobs) };
    // A typo in a scope would make a key that silently sees nothing.
    const [knownBots, knownJobs] = await Promise.all([
      store.lookups.existingBots(scope.bots),
      store.lookups.existingJobs(scope.jobs),
    ]);
    const unknown = [
      ...scope.bots.filter((b) => !knownBots.has(b)).map((b) => `bot ${b}`),
      ...scope.jobs.filter((j) => !knownJobs.has(j)).map((j) => `job ${j}`),
    ];
    if (unknown.length) throw new AppError('VALIDATION_FAILED', `no such ${unknown.join(', ')}`, { unknown });
    return { role: k.role, scope };
  }

  return {
    /** Stores a new key and returns its secret, which is never stored and cannot be shown again. */
    async create(k: NewKey): Promise<{ key: KeyView; secret: string }> {
      const { role, scope } = await checkNew(k);
      const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
      const key = await store.keys.insert({
        key_id: randomUUID(),
        name: k.name,
        role,
        scope,
        hash: hashSecret(secret),
        prefix: secret.slice(0, SHOWN_CHARS),
        created_at: isoNow(clock),
      });
      return { key, secret };
    },

    /** Every key, revoked ones included, oldest first. */
    list: (): Promise<KeyView[]> => store.keys.list(),

    /** Revokes the key of that name; it stops working with the next request. */
    async revoke(name: string): Promise<KeyView> {
      const key = await store.keys.revoke(name, isoNow(clock));
      if (!key) throw new AppError('KEY_NOT_FOUND', `no key named ${name} (or it is already revoked)`);
      return key;
    },

    /** The identity of a secret that names a key not revoked, or null. */
    async find(secret: string): Promise<Identity | null> {
      if (!secret.startsWith(SECRET_PREFIX)) return null;
      const key = await store.keys.findActiveByHash(hashSecret(secret));
      if (!key) return null;
      const now = clock();
      if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) >= LAST_USED_GRANULARITY_MS) {
        // Bookkeeping only: a database busy past its timeout must not fail the request the key is good for.
        await store.keys.touch(key.key_id, now.toISOString()).catch(() => undefined);
      }
      return { name: key.name, role: key.role, scope: isScoped(key.scope) ? key.scope : null };
    },
  };
}
export type KeysService = ReturnType<typeof createKeysService>;

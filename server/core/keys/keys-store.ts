import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { apiKeys, bots, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { isRole, isScoped, ROLES, type Identity, type KeyScope, type Role } from './roles.js';

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

export interface KeyView {
  name: string;
  role: Role;
  scope: KeyScope;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

type KeyRow = typeof apiKeys.$inferSelect;

/**
 * The 32 random bytes of a secret make a fast hash as safe as a slow one (there is nothing to guess from
 * it); slow hashes are for passwords people choose. A fast hash also lets the server look a key up by
 * its hash, one indexed read per request, instead of running scrypt against every key.
 */
const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const view = (r: KeyRow): KeyView => ({
  name: r.name,
  role: r.role as Role,
  scope: r.scope,
  prefix: r.prefix,
  created_at: r.createdAt,
  revoked_at: r.revokedAt,
  last_used_at: r.lastUsedAt,
});

const uniqueSorted = (ids: string[] | undefined): string[] => [...new Set((ids ?? []).map((s) => s.trim()).filter(Boolean))].sort();

/** Named API keys in SQLite: created with a secret shown once, listed, revoked, and found by secret. */
export function createKeysStore({ db, clock }: { db: Db; clock: Clock }) {
  function checkNew(k: NewKey): { role: Role; scope: KeyScope } {
    if (!NAME_PATTERN.test(k.name)) {
      throw new AppError('VALIDATION_FAILED', `key name "${k.name}" must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`);
    }
    if (RESERVED_KEY_NAMES.includes(k.name.toLowerCase())) throw new AppError('VALIDATION_FAILED', `key name "${k.name}" is the service key's name in audits`);
    if (!isRole(k.role)) throw new AppError('VALIDATION_FAILED', `role "${k.role}" is not one of ${ROLES.join(', ')}`);
    const scope = { bots: uniqueSorted(k.bots), jobs: uniqueSorted(k.jobs) };
    // A typo in a scope would make a key that silently sees nothing.
    const knownBots = new Set(scope.bots.length ? db.select({ id: bots.botId }).from(bots).where(inArray(bots.botId, scope.bots)).all().map((r) => r.id) : []);
    const knownJobs = new Set(scope.jobs.length ? db.select({ id: jobs.jobId }).from(jobs).where(inArray(jobs.jobId, scope.jobs)).all().map((r) => r.id) : []);
    const unknown = [...scope.bots.filter((b) => !knownBots.has(b)).map((b) => `bot ${b}`), ...scope.jobs.filter((j) => !knownJobs.has(j)).map((j) => `job ${j}`)];
    if (unknown.length) throw new AppError('VALIDATION_FAILED', `no such ${unknown.join(', ')}`, { unknown });
    return { role: k.role, scope };
  }

  const active = (name: string) => db.select().from(apiKeys).where(and(eq(apiKeys.name, name), isNull(apiKeys.revokedAt))).get();

  return {
    /** Stores a new key and returns its secret, which is never stored and cannot be shown again. */
    create(k: NewKey): { key: KeyView; secret: string } {
      const { role, scope } = checkNew(k);
      const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
      try {
        const row = db
          .insert(apiKeys)
          .values({ keyId: randomUUID(), name: k.name, role, scope, hash: hashSecret(secret), prefix: secret.slice(0, SHOWN_CHARS), createdAt: isoNow(clock) })
          .returning()
          .get();
        return { key: view(row), secret };
      } catch (err) {
        // The partial unique index on names of keys not revoked decides, also between two processes.
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new AppError('KEY_EXISTS', `a key named ${k.name} already exists`);
        throw err;
      }
    },

    /** Every key, revoked ones included, oldest first. */
    list(): KeyView[] {
      return db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.name)).all().map(view);
    },

    /** Revokes the key of that name; it stops working with the next request. */
    revoke(name: string): KeyView {
      const row = active(name);
      if (!row) throw new AppError('KEY_NOT_FOUND', `no key named ${name} (or it is already revoked)`);
      return view(db.update(apiKeys).set({ revokedAt: isoNow(clock) }).where(eq(apiKeys.keyId, row.keyId)).returning().get()!);
    },

    /** The identity of a secret that names a key not revoked, or null. */
    find(secret: string): Identity | null {
      if (!secret.startsWith(SECRET_PREFIX)) return null;
      const row = db.select().from(apiKeys).where(and(eq(apiKeys.hash, hashSecret(secret)), isNull(apiKeys.revokedAt))).get();
      if (!row) return null;
      const now = clock();
      if (!row.lastUsedAt || now.getTime() - Date.parse(row.lastUsedAt) >= LAST_USED_GRANULARITY_MS) {
        try {
          db.update(apiKeys).set({ lastUsedAt: now.toISOString() }).where(eq(apiKeys.keyId, row.keyId)).run();
        } catch {
          // Bookkeeping only: a database busy past its timeout must not fail the request the key is good for.
        }
      }
      return { name: row.name, role: row.role as Role, scope: isScoped(row.scope) ? row.scope : null };
    },
  };
}
export type KeysStore = ReturnType<typeof createKeysStore>;

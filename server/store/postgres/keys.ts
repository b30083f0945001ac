import { and, asc, eq, isNull } from 'drizzle-orm';
import { apiKeys } from '../../../drizzle/pg/schema.js';
import { AppError } from '../../core/errors.js';
import type { KeysRepo } from '../repos/keys-repo.js';
import { keyValues, keyView } from '../rows/keys.js';
import { isUniqueViolation, type PgContext } from './context.js';

export function pgKeys({ conn }: PgContext): KeysRepo {
  const active = async (where: ReturnType<typeof eq>) =>
    (
      await conn()
        .select()
        .from(apiKeys)
        .where(and(where, isNull(apiKeys.revokedAt)))
    )[0];
  return {
    async insert(k) {
      try {
        const [row] = await conn().insert(apiKeys).values(keyValues(k)).returning();
        return keyView(row!);
      } catch (err) {
        // The partial unique index on names of keys not revoked decides, also between nodes.
        if (isUniqueViolation(err)) throw new AppError('KEY_EXISTS', `a key named ${k.name} already exists`);
        throw err;
      }
    },
    list: async () =>
      (await conn().select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.name))).map(keyView),
    async revoke(name, at) {
      const row = await active(eq(apiKeys.name, name));
      if (!row) return null;
      const [done] = await conn()
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.keyId, row.keyId), isNull(apiKeys.revokedAt)))
        .returning();
      return done ? keyView(done) : null;
    },
    async findActiveByHash(hash) {
      const row = await active(eq(apiKeys.hash, hash));
      return row ? { ...keyView(row), key_id: row.keyId } : null;
    },
    async touch(keyId, at) {
      await conn().update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.keyId, keyId));
    },
  };
}

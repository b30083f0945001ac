import { and, asc, eq, isNull } from 'drizzle-orm';
import { apiKeys } from '../../../drizzle/schema.js';
import { AppError } from '../../core/errors.js';
import type { Db } from '../db.js';
import type { KeysRepo } from '../repos/keys-repo.js';
import { keyValues, keyView as view } from '../rows/keys.js';
import type { TxGate } from './tx-gate.js';

export function sqliteKeys(db: Db, gate: TxGate): KeysRepo {
  const active = (where: ReturnType<typeof eq>) =>
    db
      .select()
      .from(apiKeys)
      .where(and(where, isNull(apiKeys.revokedAt)))
      .get();
  return {
    insert: (k) =>
      gate.call(() => {
        try {
          const row = db.insert(apiKeys).values(keyValues(k)).returning().get();
          return view(row);
        } catch (err) {
          // The partial unique index on names of keys not revoked decides, also between two processes.
          if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
            throw new AppError('KEY_EXISTS', `a key named ${k.name} already exists`);
          throw err;
        }
      }),
    list: () =>
      gate.call(() => db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.name)).all().map(view)),
    revoke: (name, at) =>
      gate.call(() => {
        const row = active(eq(apiKeys.name, name));
        if (!row) return null;
        return view(db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.keyId, row.keyId)).returning().get()!);
      }),
    findActiveByHash: (hash) =>
      gate.call(() => {
        const row = active(eq(apiKeys.hash, hash));
        return row ? { ...view(row), key_id: row.keyId } : null;
      }),
    touch: (keyId, at) =>
      gate.call(() => {
        db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.keyId, keyId)).run();
      }),
  };
}

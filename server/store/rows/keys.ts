import type { apiKeys } from '../../../drizzle/schema.js';
import type { Role } from '../../core/keys/roles.js';
import type { KeyView, NewKeyRecord } from '../repos/keys-repo.js';

export type KeyRow = typeof apiKeys.$inferSelect;

export const keyView = (r: KeyRow): KeyView => ({
  name: r.name,
  role: r.role as Role,
  scope: r.scope,
  prefix: r.prefix,
  created_at: r.createdAt,
  revoked_at: r.revokedAt,
  last_used_at: r.lastUsedAt,
});

export const keyValues = (k: NewKeyRecord) => ({
  keyId: k.key_id,
  name: k.name,
  role: k.role,
  scope: k.scope,
  hash: k.hash,
  prefix: k.prefix,
  createdAt: k.created_at,
});

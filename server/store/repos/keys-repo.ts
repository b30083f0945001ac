import type { KeyScope, Role } from '../../core/keys/roles.js';

/** A named API key as listings show it; the secret itself is never stored. */
export interface KeyView {
  name: string;
  role: Role;
  scope: KeyScope;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** A key not revoked, found by the hash of its secret. */
export interface ActiveKey extends KeyView {
  key_id: string;
}

export interface NewKeyRecord {
  key_id: string;
  name: string;
  role: Role;
  scope: KeyScope;
  /** sha256 of the secret, hex. */
  hash: string;
  prefix: string;
  created_at: string;
}

export interface KeysRepo {
  /** Stores a key; a name already held by a key not revoked is `KEY_EXISTS` (decided by the database, across processes). */
  insert(key: NewKeyRecord): Promise<KeyView>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<KeyView[]>;
  /** Marks the key of that name, if one is not revoked, revoked at `at`; null when there is none. */
  revoke(name: string, at: string): Promise<KeyView | null>;
  findActiveByHash(hash: string): Promise<ActiveKey | null>;
  /** Records when a key was last used. */
  touch(keyId: string, at: string): Promise<void>;
}

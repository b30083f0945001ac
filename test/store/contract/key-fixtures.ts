import type { NewKeyRecord } from '../../../server/store/repos/keys-repo.js';

/** A reader key named `name`, for cases that need some key to write and tell keys apart by name only. */
export const readerKey = (name: string): NewKeyRecord => ({
  key_id: `key-${name}`,
  name,
  role: 'reader',
  scope: { bots: [], jobs: [] },
  hash: `hash-${name}`,
  prefix: 'lk_test',
  created_at: '2026-01-01T00:00:00.000Z',
});

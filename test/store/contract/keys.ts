import { describe, expect, it } from 'vitest';
import type { StoreFactory } from './harness.js';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const record = (name: string, hash: string, minute = 0) => ({
  key_id: `id-${name}-${hash}`,
  name,
  role: 'reader' as const,
  scope: { bots: [], jobs: [] },
  hash,
  prefix: `lk_${hash.slice(0, 8)}`,
  created_at: at(minute),
});

export function keysContract(open: StoreFactory): void {
  describe('keys', () => {
    it('inserts, lists oldest first, finds by hash, touches and revokes', async () => {
      const store = await open();
      const a = await store.keys.insert(record('alpha', 'a'.repeat(64), 1));
      expect(a).toEqual({
        name: 'alpha',
        role: 'reader',
        scope: { bots: [], jobs: [] },
        prefix: 'lk_aaaaaaaa',
        created_at: at(1),
        revoked_at: null,
        last_used_at: null,
      });
      await store.keys.insert({
        ...record('beta', 'b'.repeat(64), 0),
        role: 'admin',
        scope: { bots: ['x'], jobs: [] },
      });
      expect((await store.keys.list()).map((k) => k.name)).toEqual(['beta', 'alpha']);
      const found = await store.keys.findActiveByHash('a'.repeat(64));
      expect(found).toMatchObject({ name: 'alpha', key_id: 'id-alpha-' + 'a'.repeat(64) });
      await store.keys.touch(found!.key_id, at(5));
      expect((await store.keys.findActiveByHash('a'.repeat(64)))?.last_used_at).toBe(at(5));
      expect(await store.keys.revoke('alpha', at(6))).toMatchObject({ name: 'alpha', revoked_at: at(6) });
      expect(await store.keys.findActiveByHash('a'.repeat(64))).toBeNull();
      expect(await store.keys.revoke('alpha', at(7))).toBeNull();
      expect(await store.keys.findActiveByHash('nope')).toBeNull();
    });

    it('refuses a second key of a name not revoked, and frees the name once it is revoked', async () => {
      const store = await open();
      await store.keys.insert(record('gamma', 'c'.repeat(64)));
      await expect(store.keys.insert(record('gamma', 'd'.repeat(64)))).rejects.toMatchObject({ code: 'KEY_EXISTS' });
      await store.keys.revoke('gamma', at(1));
      await store.keys.insert(record('gamma', 'e'.repeat(64), 2));
      expect((await store.keys.list()).filter((k) => k.name === 'gamma').map((k) => k.revoked_at)).toEqual([
        at(1),
        null,
      ]);
    });
  });
}

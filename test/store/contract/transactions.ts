import { describe, expect, it } from 'vitest';
import type { StoreFactory } from './harness.js';
import { readerKey } from './key-fixtures.js';

export function transactionsContract(open: StoreFactory): void {
  describe('transactions', () => {
    it('commits what the callback wrote when it resolves, and returns its value', async () => {
      const store = await open();
      const out = await store.transaction(async (tx) => {
        await tx.keys.insert(readerKey('one'));
        await tx.keys.insert(readerKey('two'));
        return 'done';
      });
      expect(out).toBe('done');
      expect((await store.keys.list()).map((k) => k.name).sort()).toEqual(['one', 'two']);
    });

    it('rolls back everything when the callback throws, and rethrows', async () => {
      const store = await open();
      await expect(
        store.transaction(async (tx) => {
          await tx.keys.insert(readerKey('kept-out'));
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.keys.list()).toEqual([]);
    });

    it('does not let a call from outside see or join an open transaction', async () => {
      const store = await open();
      let letGo!: () => void;
      const gate = new Promise<void>((resolve) => (letGo = resolve));
      const tx = store.transaction(async (t) => {
        await t.keys.insert(readerKey('inside'));
        await gate; // real waiting inside the transaction
        throw new Error('roll back');
      });
      await new Promise((r) => setTimeout(r, 20));
      const outside = store.keys.insert(readerKey('outside'));
      const listed = store.keys.list();
      letGo();
      await expect(tx).rejects.toThrow('roll back');
      await outside;
      expect((await listed).map((k) => k.name)).not.toContain('inside');
      expect((await store.keys.list()).map((k) => k.name)).toEqual(['outside']);
    });

    it('runs a nested transaction as part of the outer one', async () => {
      const store = await open();
      await expect(
        store.transaction(async (tx) => {
          await store.transaction(async (inner) => inner.keys.insert(readerKey('nested')));
          await tx.keys.insert(readerKey('outer'));
          throw new Error('undo both');
        }),
      ).rejects.toThrow('undo both');
      expect(await store.keys.list()).toEqual([]);
    });
  });
}

/**
 * What a test server keeps of a job's files (originals, page images, exports), read or changed beside the
 * server: in its data folder, or under its prefix in the team services' bucket under LECTERN_TEST_STORE=postgres
 * (test-database.ts). Through the product's own object store, opened as the server opens it.
 */
import type { ObjectStore } from '../../server/store/objects/object-store.js';
import { openObjectStore } from '../../server/store/objects/open.js';
import { objectStoreFor } from './test-database.js';

async function withStore<T>(dataDir: string, use: (store: ObjectStore) => Promise<T>): Promise<T> {
  const store = openObjectStore(objectStoreFor(dataDir), dataDir);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}

/** Whether the server's files are in a bucket rather than its data folder. */
export const filesInBucket = (dataDir: string): boolean => objectStoreFor(dataDir) !== undefined;

/** Keys of the objects under `prefix` (`files/<job id>`), ordered. */
export const storedKeys = (dataDir: string, prefix: string): Promise<string[]> =>
  withStore(dataDir, async (s) => (await s.list(prefix)).map((o) => o.key));

export const writeStored = (dataDir: string, key: string, bytes: Uint8Array | string): Promise<void> =>
  withStore(dataDir, async (s) => void (await s.put(key, typeof bytes === 'string' ? Buffer.from(bytes) : bytes)));

export const removeStored = (dataDir: string, key: string): Promise<void> => withStore(dataDir, (s) => s.delete(key));

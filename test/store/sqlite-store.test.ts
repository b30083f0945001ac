import { join } from 'node:path';
import { afterEach, describe } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/store/db.js';
import { createSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import type { Store } from '../../server/store/store.js';
import { repoRoot, tempDir } from '../helpers/app.js';
import { storeContract } from './contract/harness.js';
import { sqlSeeds } from './contract/seeds.js';

// The repository contract on the desktop's SQLite: a fresh database file, today's migrations.
const opened: OpenedDatabase[] = [];
afterEach(() => {
  for (const d of opened.splice(0)) d.close();
});

describe('sqlite store', () => {
  // Which database each store is over, for the seed rows of aggregates not yet in the store.
  const databases = new WeakMap<Store, OpenedDatabase>();
  storeContract(
    async () => {
      const database = openDatabase(join(tempDir('lectern-store-'), 'lectern.db'), join(repoRoot, 'drizzle'));
      opened.push(database);
      const store = createSqliteStore(database);
      databases.set(store, database);
      return store;
    },
    (store) =>
      sqlSeeds(
        async (sql, params) => {
          databases
            .get(store)!
            .sqlite.prepare(sql)
            .run(...params);
        },
        () => '?',
      ),
  );
});

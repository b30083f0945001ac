import { join } from 'node:path';
import { afterEach, describe } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/store/db.js';
import { createSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import { repoRoot, tempDir } from '../helpers/app.js';
import { sqlStoreContract } from './contract/harness.js';

// The repository contract on the desktop's SQLite: a fresh database file, today's migrations.
const opened: OpenedDatabase[] = [];
afterEach(() => {
  for (const d of opened.splice(0)) d.close();
});

describe('sqlite store', () => {
  sqlStoreContract(
    async () => {
      const database = openDatabase(join(tempDir('lectern-store-'), 'lectern.db'), join(repoRoot, 'drizzle'));
      opened.push(database);
      return { store: createSqliteStore(database), database };
    },
    async (database, sql, params) => {
      database.sqlite.prepare(sql).run(...params);
    },
    () => '?',
  );
});

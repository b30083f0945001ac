/**
 * The repository contract: one list of cases, written against the Store interface only, run against every
 * backend (a `describe` per backend, as drizzle-orm's own integration tests run one body per driver).
 * Each case opens a fresh, empty, migrated store.
 */
import type { Store } from '../../../server/store/store.js';
import { botsContract } from './bots.js';
import { conversationsContract } from './conversations.js';
import { jobsContract } from './jobs.js';
import { keysContract } from './keys.js';
import { reindexesContract } from './reindexes.js';
import { collectionsContract, searchContract } from './search.js';
import { type SeedsOf, sqlSeeds } from './seeds.js';
import { revisionsContract } from './revisions.js';
import { transactionsContract } from './transactions.js';

export type StoreFactory = () => Promise<Store>;

export function storeContract(open: StoreFactory, seedsOf: SeedsOf): void {
  conversationsContract(open);
  keysContract(open);
  botsContract(open, seedsOf);
  jobsContract(open);
  revisionsContract(open);
  transactionsContract(open);
  collectionsContract(open, seedsOf);
  searchContract(open, seedsOf);
  reindexesContract(open, seedsOf);
}

/**
 * The contract on stores whose seed rows are written in SQL straight to the database under them: `open`
 * gives a fresh store with its database, `run` runs a seed statement there, `placeholder` is the dialect's
 * n-th parameter.
 */
export function sqlStoreContract<D>(
  open: () => Promise<{ store: Store; database: D }>,
  run: (database: D, sql: string, params: unknown[]) => Promise<void>,
  placeholder: (n: number) => string,
): void {
  // Which database each store is over, for the seed rows of aggregates not yet in the store.
  const databases = new WeakMap<Store, D>();
  storeContract(
    async () => {
      const { store, database } = await open();
      databases.set(store, database);
      return store;
    },
    (store) => sqlSeeds((sql, params) => run(databases.get(store)!, sql, params), placeholder),
  );
}

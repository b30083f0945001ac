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
import type { SeedsOf } from './seeds.js';
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

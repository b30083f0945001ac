/**
 * The one door to Lectern's data. Core services talk to these repositories, never to a database driver:
 * the desktop's SQLite is one implementation (store/sqlite/), a team server's PostgreSQL another, and both
 * pass the same contract suite (test/store/). Every method is async and answers in the API's own shapes.
 *
 * Transactions: `store.transaction(async (tx) => …)` runs the callback against `tx`, a store whose every
 * call is part of one transaction, committed when the callback resolves and rolled back when it throws.
 * Inside it, use `tx`, not the outer store.
 */
import type { CollectionsRepo } from './repos/collections-repo.js';
import type { ConversationsRepo } from './repos/conversations-repo.js';
import type { BotsRepo } from './repos/bots-repo.js';
import type { BlocksRepo, ChunksRepo, JobsRepo } from './repos/jobs-repo.js';
import type { KeysRepo } from './repos/keys-repo.js';
import type { LookupsRepo } from './repos/lookups-repo.js';
import type { PagesRepo } from './repos/pages-repo.js';
import type { RevisionsRepo } from './repos/revisions-repo.js';
import type { SearchIndex } from './repos/search-index.js';

export interface Repositories {
  collections: CollectionsRepo;
  conversations: ConversationsRepo;
  keys: KeysRepo;
  bots: BotsRepo;
  lookups: LookupsRepo;
  jobs: JobsRepo;
  blocks: BlocksRepo;
  chunks: ChunksRepo;
  pages: PagesRepo;
  revisions: RevisionsRepo;
}

export interface Store extends Repositories {
  /** Which implementation this is, for logs and health reports. */
  readonly kind: 'sqlite' | 'postgres';
  /** Vectors and full text (repos/search-index.ts): outside transactions, as vector files cannot take part in one. */
  readonly search: SearchIndex;
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
}

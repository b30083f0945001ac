import type { CollectionRecord } from '../../store/repos/collections-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { AppError } from '../errors.js';

export type { CollectionRecord };

/** Collection names become file names: letters, digits, `_`, `-` and `.`, not starting with a dot. */
export const COLLECTION_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$';

/** A job embedded without a collection name gets one of its own. */
export const defaultCollectionName = (jobId: string): string => `job-${jobId}`;

export async function requireCollection(store: Pick<Store, 'collections'>, name: string): Promise<CollectionRecord> {
  const c = await store.collections.find(name);
  if (!c) throw new AppError('COLLECTION_NOT_FOUND', `collection ${name} does not exist; embed a job into it first`);
  return c;
}

/**
 * A collection holds vectors of one model from one provider: mixing models would make distances
 * meaningless, so another model, provider or dimension is refused (409) instead of added.
 */
export function assertSameModel(
  c: CollectionRecord,
  wanted: { provider: string; model: string; dimensions?: number },
): void {
  const clashes: string[] = [];
  if (c.provider !== wanted.provider) clashes.push(`provider ${c.provider}, not ${wanted.provider}`);
  if (c.model !== wanted.model) clashes.push(`model ${c.model}, not ${wanted.model}`);
  if (wanted.dimensions !== undefined && c.dimensions !== wanted.dimensions)
    clashes.push(`${c.dimensions} dimensions, not ${wanted.dimensions}`);
  if (clashes.length === 0) return;
  throw new AppError(
    'INDEX_MISMATCH',
    `collection ${c.name} was built with ${clashes.join(', ')}; embed into another collection_name, or with the collection's own model`,
    { collection_name: c.name, provider: c.provider, model: c.model, dimensions: c.dimensions, requested: wanted },
  );
}

/**
 * An embed into a collection being reindexed is refused (409): its vectors would be of the model the
 * collection is leaving. The reindex also waits for embeds begun before it (core/indexing/reindex-work.ts).
 */
export async function refuseWhileReindexing(tx: Pick<Repositories, 'collections'>, name: string): Promise<void> {
  const r = await tx.collections.lastReindex(name);
  if (r?.state !== 'running') return;
  throw new AppError(
    'REINDEX_RUNNING',
    `collection ${name} is being reindexed with ${r.model}; embed into it once that ends (GET /collections/${name}/reindex)`,
    { collection_name: name, reindex_id: r.reindex_id },
  );
}

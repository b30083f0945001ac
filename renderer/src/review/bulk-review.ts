import type { Static } from 'typebox';
import type { BulkResult as BulkResultSchema } from '../../../server/schemas/review.js';
import { ApiError, type Api } from '../api/client.js';
import type { Block } from '../api/types.js';
import type { BlockStore } from './block-store.js';

/**
 * Blocks per request to the bulk routes: each request is one transaction on the server, so progress can be
 * shown between them. The whole bulk is still one queued desk action: a key pressed meanwhile acts after it,
 * in the order pressed, which is what lets `u` undo the approve-all it follows.
 */
const BATCH = 1000;

type BulkAnswer = Omit<Static<typeof BulkResultSchema>, 'blocks'> & { blocks: Block[] };
interface Stale {
  block_id: string;
  current: Block | null;
}

/** The blocks a 409 from a bulk route lists as changed since they were read. */
function staleOf(err: unknown): Stale[] | null {
  if (!(err instanceof ApiError) || err.code !== 'VERSION_CONFLICT') return null;
  const stale = (err.details as { stale?: Stale[] } | undefined)?.stale;
  return stale?.length ? stale : null;
}

export type Progress = (done: number, total: number) => void;

/**
 * Sends `items` to a bulk route (`/blocks/review` or `/blocks/undo`) in batches and keeps the store in step
 * with every answer. Blocks another reviewer changed meanwhile (a 409 naming them) take their current copy
 * and are left out of the retry: the reviewer acted on what they saw, not on the other reviewer's change.
 * Returns the blocks changed (at their new versions, each with the revision that changed it) and how many
 * were left as they were. Batches already sent stay changed when a later one fails.
 */
export async function sendInBatches<T extends { block_id: string }>(
  api: Api,
  path: string,
  items: T[],
  bodyOf: (batch: T[]) => unknown,
  store: BlockStore,
  onProgress: Progress,
  changed: Block[] = [],
): Promise<{ changed: Block[]; skipped: number }> {
  let skipped = 0;
  onProgress(0, items.length);
  for (let i = 0; i < items.length; i += BATCH) {
    let batch = items.slice(i, i + BATCH);
    while (batch.length) {
      try {
        const answer = await api.send<BulkAnswer>('POST', path, bodyOf(batch));
        for (const b of answer.blocks) store.replace(b);
        changed.push(...answer.blocks);
        break;
      } catch (err) {
        const stale = staleOf(err);
        if (!stale) throw err;
        // A block an undone split created (or a merge removed) may not exist: it has no current copy.
        for (const s of stale) if (s.current) store.replace(s.current);
        const ids = new Set(stale.map((s) => s.block_id));
        skipped += ids.size;
        batch = batch.filter((it) => !ids.has(it.block_id));
      }
    }
    onProgress(Math.min(i + BATCH, items.length), items.length);
  }
  return { changed, skipped };
}

import type { Api } from '../api/client.js';
import { loadAll } from '../api/load-all.js';
import type { Chunk } from '../api/types.js';

/**
 * Chunk id -> the blocks it was built from, for one job. Chat sources name chunks only; to open a citation
 * on its source block the desk needs the chunk's blocks, so the job's chunk list is read once per screen.
 */
export function chunkBlocks(api: Api, jobId: string): () => Promise<Map<string, string[]>> {
  let loading: Promise<Map<string, string[]>> | undefined;
  return () =>
    (loading ??= (async () => {
      const map = new Map<string, string[]>();
      await loadAll<Chunk>(api, `/jobs/${encodeURIComponent(jobId)}/chunks`, (_skip, items) => {
        for (const c of items) map.set(c.chunk_id, c.block_ids);
      });
      return map;
    })().catch(() => new Map<string, string[]>()));
}

import type { Store } from '../../store/store.js';
import type { ChunkInputBlock } from '../chunking/types.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { BlockType } from '../extract/types.js';
import { findJob } from '../jobs/find-job.js';
import { newChunk } from '../jobs/save-extraction.js';
import type { TaskPool } from '../pool.js';
import { requireState } from './review-state.js';

export interface RechunkResult {
  job_id: string;
  total_chunks: number;
  kept: number;
  added: number;
  removed: number;
}

/**
 * Rebuilds a job's chunks from its reviewed blocks (edited text and type applied, rejected blocks left
 * out). A chunk whose id survives (same content in the same section) keeps its review state; chunks
 * that no longer exist are removed, new ones arrive pending.
 */
export function createRechunk({ store, pool, clock }: { store: Store; pool: TaskPool; clock: Clock }) {
  return async function rechunk(
    jobId: string,
    reviewer: string,
    allowedStates: readonly string[] = ['ready_for_review'],
  ): Promise<RechunkResult> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const job = await findJob(store, jobId);
      requireState(job, allowedStates, 'rechunk');
      // Changes to the blocks while the worker chunks show up in it, so the write can tell it raced an edit.
      const fingerprint = await store.blocks.fingerprint(jobId);
      const input: ChunkInputBlock[] = (await store.blocks.find(jobId, { not_status: 'rejected' })).map((b) => ({
        block_id: b.block_id,
        type: (b.edited_type ?? b.type) as BlockType,
        text: b.edited_text ?? b.text,
        page: b.page,
        heading_level: b.heading_level,
      }));
      const drafts = await pool.chunk({
        blocks: input,
        options: { target_tokens: job.options.chunk_size, overlap_tokens: job.options.chunk_overlap, id_seed: jobId },
      });
      const result = await store.transaction(async (tx) => {
        requireState(await findJob(tx, jobId), allowedStates, 'rechunk');
        if ((await tx.blocks.fingerprint(jobId)) !== fingerprint) return null;
        const existing = new Set(await tx.chunks.ids(jobId));
        const order = new Map(drafts.map((d, i) => [d.chunk_id, i]));
        const fresh = drafts.filter((d) => !existing.has(d.chunk_id));
        const removedIds = [...existing].filter((id) => !order.has(id));
        for (const [id, i] of order) {
          if (existing.has(id)) await tx.chunks.update(jobId, id, { order_index: i, stale: false });
        }
        await tx.chunks.deleteMany(jobId, removedIds);
        await tx.chunks.insertMany(
          jobId,
          fresh.map((d) => newChunk(d, order.get(d.chunk_id) ?? 0)),
        );
        const summary = {
          job_id: jobId,
          total_chunks: drafts.length,
          kept: drafts.length - fresh.length,
          added: fresh.length,
          removed: removedIds.length,
        };
        const now = isoNow(clock);
        await tx.jobs.update(jobId, { total_chunks: drafts.length, updated_at: now });
        await tx.revisions.insert({
          job_id: jobId,
          entity_type: 'job',
          entity_id: jobId,
          previous_revision_id: null,
          action: 'rechunk',
          before: null,
          after: summary,
          reviewer_id: reviewer,
          timestamp: now,
        });
        return summary;
      });
      if (result) return result;
    }
    throw new AppError('VERSION_CONFLICT', 'blocks kept changing while re-chunking; try again');
  };
}
export type Rechunk = ReturnType<typeof createRechunk>;

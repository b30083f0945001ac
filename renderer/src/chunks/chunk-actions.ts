import { ApiError, type Api } from '../api/client.js';
import type { Chunk } from '../api/types.js';
import { changeAuthor } from '../review/conflict-author.js';
import { conflictDialog, type ConflictSide } from '../review/conflict-dialog.js';

export interface ChunkChange {
  status?: Chunk['status'];
  edited_text?: string | null;
  reviewer_note?: string | null;
}

const textOf = (c: Chunk) => c.edited_text ?? c.text;
const sideOf = (c: Chunk): ConflictSide => ({ status: c.status, text: textOf(c), note: c.reviewer_note });

/** PATCH a chunk at the version read; a 409 opens the same keep mine / keep theirs / merge dialog as blocks. */
export async function patchChunk(api: Api, jobId: string, chunk: Chunk, change: ChunkChange): Promise<Chunk | null> {
  try {
    return await api.send<Chunk>(
      'PATCH',
      `/jobs/${encodeURIComponent(jobId)}/chunks/${encodeURIComponent(chunk.chunk_id)}`,
      { version: chunk.version, ...change },
    );
  } catch (err) {
    const current =
      err instanceof ApiError && err.code === 'VERSION_CONFLICT'
        ? (err.details as { current?: Chunk } | undefined)?.current
        : undefined;
    if (!current) throw err;
    const mine: ConflictSide = {
      status: change.status ?? (change.edited_text !== undefined ? 'edited' : chunk.status),
      text: change.edited_text !== undefined ? (change.edited_text ?? chunk.original_text) : textOf(chunk),
      note: change.reviewer_note !== undefined ? change.reviewer_note : chunk.reviewer_note,
    };
    const author = await changeAuthor(api, jobId, current.chunk_id, current.current_revision_id);
    const choice = await conflictDialog({
      what: `Chunk ${chunk.chunk_id}`,
      base: textOf(chunk),
      mine,
      theirs: sideOf(current),
      theirVersion: current.version,
      author,
    });
    if (choice.kind === 'cancel' || choice.kind === 'theirs') return current;
    if (choice.kind === 'mine') return patchChunk(api, jobId, current, change);
    return patchChunk(api, jobId, current, {
      edited_text: choice.text === current.original_text ? null : choice.text,
      reviewer_note: choice.note,
    });
  }
}

export { textOf as chunkText };

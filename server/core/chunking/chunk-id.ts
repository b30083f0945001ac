import { createHash } from 'node:crypto';
import type { ChunkDraft } from './types.js';

/**
 * Stable ids: 'c' + 16 hex of sha256(seed \0 section path \0 text \0 occurrence), where occurrence counts
 * earlier chunks with the same path and text (0, 1, 2, …). The id depends on nothing but the chunk's own
 * content and place, so re-chunking unchanged content gives the same ids and an edit changes only the ids
 * of the chunks whose text it changes. Chunk type and block ids are left out on purpose: they follow from
 * the text, and keeping them out keeps ids stable when a reviewer only retypes a block.
 */
export function withChunkIds(drafts: Omit<ChunkDraft, 'chunk_id'>[], seed: string): ChunkDraft[] {
  const seen = new Map<string, number>();
  return drafts.map((draft) => {
    const key = draft.section_path.join('\u001f') + '\0' + draft.text;
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    const digest = createHash('sha256')
      .update(seed + '\0' + key + '\0' + String(occurrence))
      .digest('hex');
    return { chunk_id: 'c' + digest.slice(0, 16), ...draft };
  });
}

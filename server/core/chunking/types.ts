import type { BlockType } from '../extract/types.js';

export const CHUNK_TYPES = ['section', 'table', 'table_schema', 'list', 'equation', 'figure', 'continuation'] as const;
export type ChunkType = (typeof CHUNK_TYPES)[number];

/** A block as the chunker sees it: reviewed text and type already applied, rejected blocks left out. */
export interface ChunkInputBlock {
  block_id: string;
  type: BlockType;
  text: string;
  page: number;
  heading_level?: number | null;
}

export interface ChunkOptions {
  /** Size a chunk aims for, in tokens. */
  target_tokens: number;
  /** Tokens repeated from the end of the previous chunk of the same section when a section is split. */
  overlap_tokens: number;
  /** Mixed into every chunk id so ids are unique across jobs. */
  id_seed: string;
}

export interface ChunkDraft {
  /** Stable: the same content in the same place of the same job yields the same id. */
  chunk_id: string;
  text: string;
  token_count: number;
  chunk_type: ChunkType;
  /** Texts of the headings above the chunk, outermost first. */
  section_path: string[];
  block_ids: string[];
  page_numbers: number[];
}

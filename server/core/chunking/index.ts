export { buildChunks } from './chunker.js';
export { countTokens, tailByTokens } from './tokens.js';
export { CHUNK_TYPES } from './types.js';
export type { ChunkDraft, ChunkInputBlock, ChunkOptions, ChunkType } from './types.js';

import type { collectionReindexes, collections, jobIndexes } from '../../../drizzle/schema.js';
import type {
  CollectionRecord,
  JobIndexRecord,
  NewChunkVector,
  NewCollection,
  NewReindex,
  ReindexRecord,
  ReindexState,
  VectorQuantization,
} from '../repos/collections-repo.js';

type CollectionRow = typeof collections.$inferSelect;
type JobIndexRow = typeof jobIndexes.$inferSelect;
type ReindexRow = typeof collectionReindexes.$inferSelect;

export const collectionOf = (r: CollectionRow): CollectionRecord => ({
  name: r.name,
  provider: r.provider,
  base_url: r.baseUrl,
  model: r.model,
  dimensions: r.dimensions,
  quantization: r.quantization as VectorQuantization,
  metric: r.metric,
  next_key: r.nextKey,
  index_version: r.indexVersion,
  vector_index: r.vectorIndex,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

export const collectionValues = (c: NewCollection) => ({
  name: c.name,
  provider: c.provider,
  baseUrl: c.base_url,
  model: c.model,
  dimensions: c.dimensions,
  quantization: c.quantization,
  createdAt: c.created_at,
  updatedAt: c.created_at,
});

export const jobIndexOf = (r: JobIndexRow): JobIndexRecord => ({
  job_id: r.jobId,
  collection: r.collection,
  chunks_embedded: r.chunksEmbedded,
  chunks_total: r.chunksTotal,
  indexed_at: r.indexedAt,
  updated_at: r.updatedAt,
});

export const chunkVectorValues = (v: NewChunkVector) => ({
  collection: v.collection,
  key: v.key,
  jobId: v.job_id,
  chunkId: v.chunk_id,
  text: v.text,
  textHash: v.text_hash,
  language: v.language,
  createdAt: v.created_at,
});

/** The chunk statuses whose chunks belong in an index. */
export const INDEXABLE = ['approved', 'edited'];

export const reindexOf = (r: ReindexRow): ReindexRecord => ({
  reindex_id: r.reindexId,
  collection: r.collection,
  provider: r.provider,
  base_url: r.baseUrl,
  model: r.model,
  dimensions: r.dimensions,
  from_index: r.fromIndex,
  vector_index: r.vectorIndex,
  state: r.state as ReindexState,
  chunks_done: r.chunksDone,
  chunks_total: r.chunksTotal,
  error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? '' } : null,
  drop_index: r.dropIndex,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  finished_at: r.finishedAt,
});

export const reindexValues = (r: NewReindex) => ({
  reindexId: r.reindex_id,
  collection: r.collection,
  provider: r.provider,
  baseUrl: r.base_url,
  model: r.model,
  dimensions: r.dimensions,
  fromIndex: r.from_index,
  vectorIndex: r.vector_index,
  state: 'running',
  createdAt: r.created_at,
  updatedAt: r.created_at,
});

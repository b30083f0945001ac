import type { collections, jobIndexes } from '../../../drizzle/schema.js';
import type {
  CollectionRecord,
  JobIndexRecord,
  NewChunkVector,
  VectorQuantization,
} from '../repos/collections-repo.js';

type CollectionRow = typeof collections.$inferSelect;
type JobIndexRow = typeof jobIndexes.$inferSelect;

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
  created_at: r.createdAt,
  updated_at: r.updatedAt,
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

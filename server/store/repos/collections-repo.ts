/**
 * Vector collections as records: what each holds (model, dimensions, how its vectors are stored), which
 * collection each job is embedded into (`job_indexes`) and which chunk each vector key holds
 * (`chunk_vectors`, with the text that was embedded). The vectors themselves and the full-text index over
 * that text are the search index's (search-index.ts).
 */
export type VectorQuantization = 'f32' | 'f16' | 'i8';

export interface CollectionRecord {
  name: string;
  provider: string;
  /** A remote provider's address, so search embeds queries where the documents were embedded. */
  base_url: string | null;
  model: string;
  dimensions: number;
  quantization: VectorQuantization;
  metric: string;
  /** The next vector key to hand out; keys are never reused, so a stale key can never name a new chunk. */
  next_key: number;
  /** Bumped at every change of the collection's vectors; search reports it as `index_version`. */
  index_version: number;
  /** The name its vectors are kept under when not the collection's own (since a reindex); see search-index.ts. */
  vector_index: string | null;
  created_at: string;
  updated_at: string;
}

export type NewCollection = Pick<
  CollectionRecord,
  'name' | 'provider' | 'base_url' | 'model' | 'dimensions' | 'quantization' | 'created_at'
>;

/** Where a job is embedded and how far its embed has got. */
export interface JobIndexRecord {
  job_id: string;
  collection: string;
  chunks_embedded: number;
  chunks_total: number;
  /** When the job's vectors were last committed; null until its first embed ends. */
  indexed_at: string | null;
  updated_at: string;
}

/** One vector's bookkeeping row: its key in the collection and the chunk and text it was embedded from. */
export interface ChunkVectorRecord {
  /** The row's own id; search candidates are named by it. */
  id: number;
  collection: string;
  key: number;
  job_id: string;
  chunk_id: string;
  text_hash: string;
}

export interface NewChunkVector {
  collection: string;
  key: number;
  job_id: string;
  chunk_id: string;
  text: string;
  text_hash: string;
  /** The language of the text (ISO 639-3, null: not known): full text indexes it with stems in that language. */
  language: string | null;
  created_at: string;
}

/** A search hit: the vector's row with the chunk it names, as search answers it. */
export interface VectorHit {
  id: number;
  key: number;
  job_id: string;
  chunk_id: string;
  /** The text that was embedded (the chunk's edited text, if it had one then). */
  text: string;
  text_hash: string;
  chunk_type: string;
  page_numbers: number[];
  section_path: string[];
  block_ids: string[];
}

/** A chunk that belongs in the job's index: approved or edited, with the text to embed (the edit, if any). */
export interface IndexableChunk {
  chunk_id: string;
  text: string;
}

export interface ChunkRef {
  job_id: string;
  chunk_id: string;
}

/** How an embed that did not commit leaves its job. */
export interface EmbedFailure {
  code: string;
  message: string;
}

export type ReindexState = 'running' | 'done' | 'cancelled' | 'failed';

/** A re-embedding of a collection with another model (core/indexing/reindex-work.ts). */
export interface ReindexRecord {
  reindex_id: string;
  collection: string;
  provider: string;
  base_url: string | null;
  model: string;
  dimensions: number;
  /** The collection's vector index when the reindex began; the switch happens only if it still is. */
  from_index: string | null;
  /** Where the new vectors go. */
  vector_index: string;
  state: ReindexState;
  chunks_done: number;
  chunks_total: number;
  error: EmbedFailure | null;
  /** An index still to be removed: the old one after the switch, the partial one after a cancel or failure. */
  drop_index: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export type NewReindex = Pick<
  ReindexRecord,
  | 'reindex_id'
  | 'collection'
  | 'provider'
  | 'base_url'
  | 'model'
  | 'dimensions'
  | 'from_index'
  | 'vector_index'
  | 'created_at'
>;

/** A vector's key in its collection and the text it was embedded from. */
export interface KeyedText {
  key: number;
  text: string;
}

export interface CollectionsRepo {
  find(name: string): Promise<CollectionRecord | null>;
  /** Every collection by name, or only those of `names` (a page of bots reads its own, not every job's). */
  list(names?: readonly string[]): Promise<CollectionRecord[]>;
  /** Creates the collection unless one of that name exists (decided by the database); returns the one that is there. */
  ensure(c: NewCollection): Promise<CollectionRecord>;
  /** Hands out `n` consecutive vector keys of the collection; returns the first. */
  reserveKeys(name: string, n: number): Promise<number>;
  /** Bumps the index version of each named collection. */
  bumpVersions(names: readonly string[], at: string): Promise<void>;
  /** Deletes the collection's record, its vector rows and the jobs' membership in it. */
  remove(name: string): Promise<void>;

  jobIndex(jobId: string): Promise<JobIndexRecord | null>;
  /**
   * Starts an embed: the job goes to `embedding` if its status is one of `from` (one statement, so two
   * embeds of a job never both start), and is recorded as embedding into `collection`, `total` chunks to
   * go, its error cleared. False when the job is not (or no longer) in one of `from`.
   */
  beginEmbed(jobId: string, collection: string, total: number, from: readonly string[], at: string): Promise<boolean>;
  /** Records how many of the embed's chunks are done. */
  progress(jobId: string, embedded: number, at: string): Promise<void>;
  /** Ends an embed that committed: the job, if still `embedding`, becomes `indexed`, all `total` chunks done. False when it was not embedding. */
  finishEmbed(jobId: string, total: number, at: string): Promise<boolean>;
  /**
   * Puts an `embedding` job back to rest: `indexed` if it was indexed before this embed, else `finalized`,
   * with the failure (or none). Does nothing to a job in any other status.
   */
  restEmbed(jobId: string, failure: EmbedFailure | null, at: string): Promise<void>;
  /** At start-up: every job left `embedding` by a stop is put back to rest, no failure recorded; returns how many. */
  restInterruptedEmbeds(at: string): Promise<number>;

  /** The job's vector rows in every collection. */
  vectorsOfJob(jobId: string): Promise<ChunkVectorRecord[]>;
  /** How many vectors the job has in the collection. */
  countVectors(jobId: string, collection: string): Promise<number>;
  /** Deletes the rows of these ids and inserts these (their text enters the full-text index with them). */
  replaceVectors(removeIds: readonly number[], add: readonly NewChunkVector[]): Promise<void>;
  /** The rows of these ids with their chunks; ids of rows (or chunks) gone are left out. */
  hits(ids: readonly number[]): Promise<VectorHit[]>;

  /** The job's approved and edited chunks in reading order, each with the text to embed. */
  indexableChunks(jobId: string): Promise<IndexableChunk[]>;
  /** Which of these chunks are still approved or edited (a reviewer may reject one after it was embedded). */
  stillIndexable(refs: readonly ChunkRef[]): Promise<ChunkRef[]>;

  /** How many jobs are embedding into the collection now. */
  embeddingInto(name: string): Promise<number>;
  /** The collection's vector rows with keys above `afterKey`, by key, at most `limit`. */
  keyedTexts(name: string, afterKey: number, limit: number): Promise<KeyedText[]>;
  /** How many vector rows the collection has. */
  countKeys(name: string): Promise<number>;

  /** Records a reindex as running; null when one of the collection is running already (decided by the database). */
  beginReindex(r: NewReindex): Promise<ReindexRecord | null>;
  reindex(reindexId: string): Promise<ReindexRecord | null>;
  /** The collection's latest reindex, running or ended. */
  lastReindex(name: string): Promise<ReindexRecord | null>;
  /** Every running reindex, oldest first. */
  runningReindexes(): Promise<ReindexRecord[]>;
  reindexProgress(reindexId: string, done: number, total: number, at: string): Promise<void>;
  /**
   * Ends a running reindex without switching: cancelled, or failed with why; its partial index is to be
   * dropped (`drop_index`). False when it was not running.
   */
  endReindex(
    reindexId: string,
    state: 'cancelled' | 'failed',
    failure: EmbedFailure | null,
    at: string,
  ): Promise<boolean>;
  /**
   * The switch, in one statement each, to call in one transaction: the collection takes the reindex's model
   * and vector index (its index version bumped) if its vector index is still the one the reindex began from,
   * and the reindex is done with the old index to drop. False (nothing changed) when either had moved on.
   */
  switchToReindex(reindexId: string, at: string): Promise<boolean>;
  /** Reindexes whose `drop_index` is still there. */
  indexesToDrop(): Promise<{ reindex_id: string; drop_index: string }[]>;
  /** The index a reindex named in `drop_index` is gone. */
  droppedIndex(reindexId: string, at: string): Promise<void>;
}

/** The methods a reindex uses, which each store keeps in a file of their own (collection-reindexes.ts). */
export type ReindexMethods = Pick<
  CollectionsRepo,
  | 'embeddingInto'
  | 'keyedTexts'
  | 'countKeys'
  | 'beginReindex'
  | 'reindex'
  | 'lastReindex'
  | 'runningReindexes'
  | 'reindexProgress'
  | 'endReindex'
  | 'switchToReindex'
  | 'indexesToDrop'
  | 'droppedIndex'
>;

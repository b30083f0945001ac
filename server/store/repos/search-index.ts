/**
 * Search behind one interface: the vectors of each collection and a full-text index over the text each
 * vector was embedded from, so that a backend can supply both (the desktop: one USearch file per
 * collection and SQLite FTS5; a team server: pgvector with an HNSW index per collection and tsvector
 * with GIN).
 *
 * Vectors are stored under (collection, key), keys from `collections.reserveKeys`; the collection's
 * `chunk_vectors` rows say which chunk each key holds. Vectors and rows need no common transaction: a key
 * no row maps names nothing and search never returns it (an embed writes its vectors before it commits its
 * rows, so one cut short leaves only such keys), and a row whose key holds no vector is found by full text
 * only until the next embed of its job embeds it again (`present`). The full-text index follows the rows
 * themselves (each row's text is indexed with it and leaves with it), so it needs no calls of its own.
 *
 * Candidates are named by their `chunk_vectors` id and come best first; `collections.hits(ids)` reads them.
 */
import type { SearchFilters } from '../../core/search/filters.js';
import type { VectorQuantization } from './collections-repo.js';

/** What a backend needs to know of a collection to hold its vectors. */
export interface VectorCollectionSpec {
  /** The collection: its `chunk_vectors` rows map the keys. */
  name: string;
  dimensions: number;
  quantization: VectorQuantization;
  /**
   * The name the vectors are kept under (a file, a table), when not the collection's own: a reindex writes
   * another model's vectors beside the collection's index, under a name of its own, until it switches.
   */
  vector_index?: string | null;
}

/** The name a collection's vectors are kept under: what `drop` takes. */
export const vectorIndexName = (c: Pick<VectorCollectionSpec, 'name' | 'vector_index'>): string =>
  c.vector_index ?? c.name;

/** Which of a collection's chunks a search may answer with. */
export interface SearchScope {
  /** Only this job's chunks. */
  job_id?: string;
  filters?: SearchFilters;
}

export interface Candidate {
  /** The `chunk_vectors` id. */
  id: number;
  /** Cosine similarity (vectors) or BM25 made "higher is better" (full text). */
  score: number;
}

export interface VectorChange {
  /** Keys whose vectors go. */
  remove?: readonly number[];
  /** Vectors to store under these keys (replacing any there): n×dimensions, row-major. */
  add?: { keys: readonly number[]; vectors: Float32Array };
}

export interface VectorCollections {
  /** Makes the collections ready to search (at start-up), so the first search does not pay for it. */
  open(specs: readonly VectorCollectionSpec[]): Promise<void>;
  /** Applies one change to a collection's vectors, durably: once it resolves, the change survives a crash. */
  write(c: VectorCollectionSpec, change: VectorChange): Promise<void>;
  /** Which of these keys hold a vector. */
  present(c: VectorCollectionSpec, keys: readonly number[]): Promise<Set<number>>;
  /** The `limit` vectors nearest `query` (cosine) among the rows in `scope`, nearest first. */
  nearest(c: VectorCollectionSpec, query: Float32Array, limit: number, scope?: SearchScope): Promise<Candidate[]>;
  /**
   * The cosine similarity of `query` to the vectors under these keys, by key. An approximate index may
   * leave out keys it does not reach cheaply; the caller works those out otherwise.
   */
  similarities(c: VectorCollectionSpec, query: Float32Array, keys: readonly number[]): Promise<Map<number, number>>;
  /**
   * The vectors stored under these keys (f16 and i8 widened to float32), by key; keys holding none are left
   * out. For copying a collection into another store as it was embedded (`lectern migrate`).
   */
  read(c: VectorCollectionSpec, keys: readonly number[]): Promise<Map<number, Float32Array>>;
  /** Removes the vectors kept under this name (`vectorIndexName`) and whatever holds them. */
  drop(vectorIndex: string): Promise<void>;
}

export interface FullText {
  /** The rows of the collection in `scope` whose embedded text matches any word of `query`, BM25-ranked, best first. */
  candidates(collection: string, query: string, limit: number, scope?: SearchScope): Promise<Candidate[]>;
}

export interface SearchIndex {
  vectors: VectorCollections;
  fullText: FullText;
}

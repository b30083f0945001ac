import type { ModelManager } from '../../models/manager.js';
import type { Candidate, SearchScope } from '../../store/repos/search-index.js';
import type { Store } from '../../store/store.js';
import { AppError, isAppError } from '../errors.js';
import { resolveProvider, type EmbeddingProvider, type ProviderName } from '../embedding/providers.js';
import { findJob } from '../jobs/find-job.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { requireCollection, type CollectionRecord } from '../indexing/collections.js';
import type { SearchFilters } from './filters.js';
import { scoreFusion } from './fuse.js';
import { hitCosines } from './hit-cosines.js';
import { readableScore } from './similarity.js';
import { demoteTablesOfContents, isTableOfContents } from './toc.js';

export const SEARCH_MODES = ['hybrid', 'vector', 'keyword'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export interface SearchRequest {
  query: string;
  /** One job; its collection is the one it was embedded into, unless collection_name says otherwise. */
  job_id?: string;
  /** A whole collection (every job embedded into it). */
  collection_name?: string;
  top_k?: number;
  mode?: SearchMode;
  filters?: SearchFilters;
  /** For a collection built by an OpenAI-compatible provider that needs a key to embed the query. */
  api_key?: string;
  /** The index version the caller expects (LongParser pins searches to one); another one is a 409. */
  index_version?: string | number;
}

/** LongParser's default; more are asked for with top_k. */
export const DEFAULT_TOP_K = 5;

export interface SearchDeps {
  store: Store;
  pool: TaskPool;
  models: ModelManager;
  defaultModel: string;
  /** A collection built by a remote provider embeds its queries there, through this. */
  net: GuardedFetch;
}

/**
 * How deep each list goes before fusion: deeper than top_k, so fusion can lift what one list ranks low, and
 * the same for every top_k up to 100, so a shorter answer is the start of a longer one.
 */
const fusionDepth = (topK: number) => Math.max(100, topK);

async function collectionFor(d: SearchDeps, req: SearchRequest): Promise<CollectionRecord> {
  if (req.collection_name) return requireCollection(d.store, req.collection_name);
  if (!req.job_id)
    throw new AppError('VALIDATION_FAILED', 'name a job_id or a collection_name to search', [{ field: 'job_id' }]);
  const where = await d.store.collections.jobIndex(req.job_id);
  if (!where?.indexed_at) {
    const job = await findJob(d.store, req.job_id);
    throw new AppError(
      'INVALID_STATE',
      `job ${req.job_id} is ${job.status} and has no index yet: POST /jobs/${req.job_id}/embed first`,
      { status: job.status },
    );
  }
  return requireCollection(d.store, where.collection);
}

/** Keyword, vector or hybrid (both lists' scores fused, fuse.ts) search over one job or one collection. */
export function createSearch(deps: SearchDeps) {
  const { store } = deps;
  const { vectors, fullText } = store.search;

  async function providerFor(c: CollectionRecord, req: SearchRequest) {
    return resolveProvider(
      { provider: c.provider as ProviderName, model: c.model, base_url: c.base_url ?? undefined, api_key: req.api_key },
      { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
    );
  }

  async function queryVector(provider: EmbeddingProvider, c: CollectionRecord, query: string): Promise<Float32Array> {
    const [v] = await provider.embedQueries([query]);
    if (!v || v.length !== c.dimensions)
      throw new AppError(
        'INDEX_MISMATCH',
        `the query embedded to ${v?.length ?? 0} dimensions; collection ${c.name} holds ${c.dimensions}`,
      );
    return v;
  }

  /** The provider and the query's vector; undefined when `optional` and the provider cannot embed here. */
  async function embedQuery(c: CollectionRecord, req: SearchRequest, optional: boolean) {
    try {
      const provider = await providerFor(c, req);
      return { provider, vector: await queryVector(provider, c, req.query) };
    } catch (err) {
      if (optional && isAppError(err)) return undefined;
      throw err;
    }
  }

  /**
   * A reindex switches a collection to another model and index at once, then drops the old index: a search
   * that read the collection before the switch and its vectors after the drop found them gone (no results,
   * or PostgreSQL's missing table). Such a search is answered again from the new index, so every answer
   * comes wholly from one index, before the switch or after.
   */
  async function search(req: SearchRequest) {
    for (let tries = 1; ; tries++) {
      const c = await collectionFor(deps, req);
      const switched = async () => (await store.collections.find(c.name))?.vector_index !== c.vector_index;
      try {
        const answer = await searchIn(c, req);
        if (tries < 3 && (await switched())) continue;
        return answer;
      } catch (err) {
        if (tries < 3 && (await switched())) continue;
        throw err;
      }
    }
  }

  async function searchIn(c: CollectionRecord, req: SearchRequest) {
    const mode = req.mode ?? 'hybrid';
    const topK = req.top_k ?? DEFAULT_TOP_K;
    const indexVersion = String(c.index_version);
    if (req.index_version !== undefined && String(req.index_version) !== indexVersion) {
      throw new AppError(
        'INDEX_MISMATCH',
        `index_version ${req.index_version} of collection ${c.name} is no longer served: its index is at ${indexVersion} (only the current index is kept; search without index_version, or with ${indexVersion})`,
        { collection_name: c.name, index_version: indexVersion, requested: String(req.index_version) },
      );
    }
    const scope: SearchScope = { job_id: req.job_id, filters: req.filters };
    // Every mode lists deeper than top_k: fusion can lift what one list ranks low, and a demoted table of
    // contents leaves room for the passages below it.
    const depth = fusionDepth(topK);
    const perMode = new Map<number, { vector?: number; keyword?: number }>();
    const note = (list: Candidate[], kind: 'vector' | 'keyword') => {
      for (const x of list) perMode.set(x.id, { ...perMode.get(x.id), [kind]: x.score });
      return list;
    };
    // The query is embedded in every mode: `score` is its cosine similarity to each hit, whatever ranked them.
    // Keyword search alone still answers when the collection's model cannot embed here (a remote provider
    // without its key, a model removed since): BM25 orders, and `score` is null.
    const embedder = await embedQuery(c, req, mode === 'keyword');
    const vectorList =
      mode === 'keyword' ? [] : note(await vectors.nearest(c, embedder!.vector, depth, scope), 'vector');
    const keywordList =
      mode === 'vector' ? [] : note(await fullText.candidates(c.name, req.query, depth, scope), 'keyword');
    const ranked =
      mode === 'hybrid' ? scoreFusion(keywordList, vectorList) : mode === 'vector' ? vectorList : keywordList;
    const rows = new Map((await store.collections.hits(ranked.map((r) => r.id))).map((h) => [h.id, h]));
    const present = ranked.flatMap((r) => {
      const row = rows.get(r.id);
      return row ? [{ rank: r.score, row }] : [];
    });
    const top = demoteTablesOfContents(present, (x) => isTableOfContents(x.row.text, x.row.section_path)).slice(
      0,
      topK,
    );
    const knownCosine = new Map(
      top.flatMap((x) =>
        perMode.get(x.row.id)?.vector !== undefined ? [[x.row.id, perMode.get(x.row.id)!.vector!] as const] : [],
      ),
    );
    const cosine = embedder
      ? await hitCosines(
          top.map((x) => x.row),
          knownCosine,
          (keys) => vectors.similarities(c, embedder.vector, keys),
          embedder.provider,
          embedder.vector,
        )
      : undefined;
    const results = top.map(({ rank, row }) => {
      const s = perMode.get(row.id) ?? {};
      const metadata = {
        job_id: row.job_id,
        chunk_id: row.chunk_id,
        chunk_type: row.chunk_type,
        section_path: row.section_path,
        page_numbers: row.page_numbers,
        block_ids: row.block_ids,
        index_version: indexVersion,
        text_hash: row.text_hash,
        collection: c.name,
      };
      return {
        chunk_id: row.chunk_id,
        job_id: row.job_id,
        text: row.text,
        score: cosine ? readableScore(cosine.get(row.id) ?? 0) : null,
        rank_score: rank,
        page_numbers: row.page_numbers,
        chunk_type: row.chunk_type,
        section_path: row.section_path,
        block_ids: row.block_ids,
        scores: { vector: s.vector ?? null, keyword: s.keyword ?? null },
        index_version: indexVersion,
        metadata,
      };
    });
    return {
      query: req.query,
      mode,
      collection_name: c.name,
      model: c.model,
      provider: c.provider,
      index_version: indexVersion,
      results,
      total: results.length,
    };
  }

  return search;
}
export type Search = ReturnType<typeof createSearch>;

import { eq, inArray, sql } from 'drizzle-orm';
import { chunkVectors, chunks, jobIndexes } from '../../../drizzle/schema.js';
import type { ModelManager } from '../../models/manager.js';
import type { CollectionIndexes } from '../../store/collection-indexes.js';
import type { Db } from '../../store/db.js';
import { AppError } from '../errors.js';
import { resolveProvider, type ProviderName } from '../embedding/providers.js';
import { findJob } from '../jobs/find-job.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { requireCollection, type CollectionRow } from '../indexing/collections.js';
import { keywordCandidates, vectorCandidates, type Candidate } from './candidates.js';
import { filterSql, type SearchFilters } from './filters.js';
import { reciprocalRankFusion } from './fuse.js';

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
}

export interface SearchDeps {
  db: Db;
  pool: TaskPool;
  models: ModelManager;
  indexes: CollectionIndexes;
  defaultModel: string;
  /** A collection built by a remote provider embeds its queries there, through this. */
  net: GuardedFetch;
}

/** How deep each list goes before fusion: deeper than top_k, so fusion can lift what one list ranks low. */
const fusionDepth = (topK: number) => Math.max(100, topK * 2);

function collectionFor(db: Db, req: SearchRequest): CollectionRow {
  if (req.collection_name) return requireCollection(db, req.collection_name);
  if (!req.job_id) throw new AppError('VALIDATION_FAILED', 'name a job_id or a collection_name to search', [{ field: 'job_id' }]);
  const job = findJob(db, req.job_id);
  const where = db.select().from(jobIndexes).where(eq(jobIndexes.jobId, req.job_id)).get();
  if (!where?.indexedAt) {
    throw new AppError('INVALID_STATE', `job ${req.job_id} is ${job.status} and has no index yet: POST /jobs/${req.job_id}/embed first`, { status: job.status });
  }
  return requireCollection(db, where.collection);
}

/** Keyword, vector or hybrid (reciprocal rank fusion of both) search over one job or one collection. */
export function createSearch(deps: SearchDeps) {
  const { db } = deps;

  async function queryVector(c: CollectionRow, req: SearchRequest): Promise<Float32Array> {
    const provider = await resolveProvider(
      { provider: c.provider as ProviderName, model: c.model, base_url: c.baseUrl ?? undefined, api_key: req.api_key },
      { models: deps.models, pool: deps.pool, defaultModel: deps.defaultModel, net: deps.net },
    );
    const [v] = await provider.embed([req.query]);
    if (!v || v.length !== c.dimensions) throw new AppError('INDEX_MISMATCH', `the query embedded to ${v?.length ?? 0} dimensions; collection ${c.name} holds ${c.dimensions}`);
    return v;
  }

  function details(ranked: Candidate[], perMode: Map<number, { vector?: number; keyword?: number }>) {
    if (ranked.length === 0) return [];
    const ids = ranked.map((r) => r.id);
    const rows = db
      .select({ id: chunkVectors.id, jobId: chunkVectors.jobId, chunkId: chunkVectors.chunkId, text: chunkVectors.text, chunkType: chunks.chunkType, pageNumbers: chunks.pageNumbers, sectionPath: chunks.sectionPath, blockIds: chunks.blockIds })
      .from(chunkVectors)
      .innerJoin(chunks, sql`${chunks.jobId} = ${chunkVectors.jobId} AND ${chunks.chunkId} = ${chunkVectors.chunkId}`)
      .where(inArray(chunkVectors.id, ids))
      .all();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ranked.flatMap((r) => {
      const row = byId.get(r.id);
      if (!row) return [];
      const s = perMode.get(r.id) ?? {};
      return [{
        chunk_id: row.chunkId,
        job_id: row.jobId,
        text: row.text,
        score: r.score,
        page_numbers: row.pageNumbers,
        chunk_type: row.chunkType,
        section_path: row.sectionPath,
        block_ids: row.blockIds,
        scores: { vector: s.vector ?? null, keyword: s.keyword ?? null },
      }];
    });
  }

  return async function search(req: SearchRequest) {
    const mode = req.mode ?? 'hybrid';
    const topK = req.top_k ?? 10;
    const c = collectionFor(db, req);
    const where = filterSql(req.filters, req.job_id);
    const filtered = Boolean(req.job_id || (req.filters && Object.values(req.filters).some((v) => v !== undefined)));
    const depth = mode === 'hybrid' ? fusionDepth(topK) : topK;
    const perMode = new Map<number, { vector?: number; keyword?: number }>();
    const note = (list: Candidate[], kind: 'vector' | 'keyword') => {
      for (const x of list) perMode.set(x.id, { ...perMode.get(x.id), [kind]: x.score });
      return list;
    };
    const lists: Candidate[][] = [];
    if (mode !== 'keyword') {
      const vector = await queryVector(c, req);
      lists.push(note(vectorCandidates(db, deps.indexes.get(c), c.name, vector, where, depth, filtered), 'vector'));
    }
    if (mode !== 'vector') lists.push(note(keywordCandidates(db, c.name, req.query, where, depth), 'keyword'));
    const ranked = (mode === 'hybrid' ? reciprocalRankFusion(lists) : lists[0]!).slice(0, topK);
    const results = details(ranked, perMode);
    return {
      query: req.query,
      mode,
      collection_name: c.name,
      model: c.model,
      provider: c.provider,
      index_version: c.indexVersion,
      results,
      total: results.length,
    };
  };
}
export type Search = ReturnType<typeof createSearch>;

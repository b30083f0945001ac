import type { Store } from '../../store/store.js';
import type { Search } from '../search/search.js';
import type { PromptSource } from './prompt.js';

export interface RetrievedSource extends PromptSource {
  job_id: string;
  /** Cosine similarity of the question and the chunk (0..1), as POST /search reports it: what decides relevance. */
  score: number;
}

export interface RetrieveOptions {
  /** One job's index, or a whole collection (a bot's knowledge). */
  scope: { jobId: string } | { collection: string };
  question: string;
  /** The previous question of the session: follow-ups ("and what does it release?") lean on it. */
  previousQuestion?: string;
  topK: number;
  minSimilarity: number;
}

/**
 * Below this cosine similarity (all-MiniLM-L6-v2) a chunk is taken as unrelated to the question: on the
 * test topics related question/passage pairs score 0.35-0.7 and unrelated ones under 0.15. Retrieval
 * deciding relevance matters more than the prompt with a 135M model, which answers anything it is asked.
 */
export const DEFAULT_MIN_SIMILARITY = 0.25;

type SearchHit = Awaited<ReturnType<Search>>['results'][number];

// Words by which a question points back at an earlier one ("which gas does it release?"). Only such
// questions are searched together with the previous question: a new topic searched that way would pull
// the old topic's chunks back in and be answered from them.
const REFERRING =
  /\b(it|its|it's|they|them|their|theirs|this|that|these|those|he|him|his|she|her|hers|there|same|such|former|latter|else|more|also)\b|^(and|what about|how about)\b/i;

export function refersBack(question: string): boolean {
  return REFERRING.test(question.trim());
}

/**
 * The chunks that may ground an answer: hybrid search over the job's index (or a bot's collection), kept only when the
 * chunk is still approved or edited (a reviewer may reject one after it was embedded) and similar enough
 * to the question. Labelled S1, S2… in rank order for the prompt.
 */
export async function retrieveSources(
  deps: { store: Pick<Store, 'collections'>; search: Search },
  o: RetrieveOptions,
): Promise<RetrievedSource[]> {
  const depth = Math.max(o.topK * 2, 10);
  const queries = [
    o.question,
    ...(o.previousQuestion && refersBack(o.question) ? [`${o.previousQuestion} ${o.question}`] : []),
  ];
  const best = new Map<string, SearchHit>();
  for (const query of queries) {
    const where = 'jobId' in o.scope ? { job_id: o.scope.jobId } : { collection_name: o.scope.collection };
    const { results } = await deps.search({ ...where, query, top_k: depth, mode: 'hybrid' });
    for (const r of results) {
      const key = `${r.job_id}\u0000${r.chunk_id}`;
      const seen = best.get(key);
      if (!seen || (r.score ?? 0) > (seen.score ?? 0)) best.set(key, r);
    }
  }
  const hits = [...best.values()].filter((r) => (r.score ?? 0) >= o.minSimilarity);
  if (hits.length === 0) return [];
  const indexable = await deps.store.collections.stillIndexable(
    hits.map((h) => ({ job_id: h.job_id, chunk_id: h.chunk_id })),
  );
  const approved = new Set(indexable.map((r) => `${r.job_id}\u0000${r.chunk_id}`));
  return hits
    .filter((h) => approved.has(`${h.job_id}\u0000${h.chunk_id}`))
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0))
    .slice(0, o.topK)
    .map((h, i) => ({
      label: `S${i + 1}`,
      chunk_id: h.chunk_id,
      job_id: h.job_id,
      page_numbers: h.page_numbers,
      section_path: h.section_path,
      text: h.text,
      score: h.score ?? 0,
    }));
}

import { Type } from 'typebox';
import { SEARCH_MODES } from '../core/search/search.js';
import { StringEnum } from './common.js';
import { CollectionName } from './embed.js';

const Page = Type.Integer({ minimum: 1 });

export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 10_000 }),
    job_id: Type.Optional(Type.String({ description: 'Search one job (in the collection it was embedded into)' })),
    collection_name: Type.Optional({ ...CollectionName, description: 'Search a whole collection; with job_id, only that job within it' }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 10 })),
    mode: Type.Optional(StringEnum(SEARCH_MODES, { description: 'hybrid (default): BM25 and vector lists fused by reciprocal rank; vector; keyword (FTS5 BM25)' })),
    filters: Type.Optional(
      Type.Object(
        {
          chunk_type: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: 'One chunk type or several' })),
          pages: Type.Optional(Type.Array(Page, { description: 'Chunks touching any of these pages' })),
          page_from: Type.Optional(Page),
          page_to: Type.Optional(Page),
          section: Type.Optional(Type.String({ minLength: 1, description: 'Text in any heading of the chunk\'s section path (case-insensitive)' })),
        },
        { additionalProperties: false },
      ),
    ),
    api_key: Type.Optional(Type.String({ description: 'For a collection embedded by an OpenAI-compatible server that needs a key' })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

export const SearchResult = Type.Object({
  chunk_id: Type.String(),
  job_id: Type.String(),
  text: Type.String({ description: 'The text that was embedded (edited text where the reviewer changed it)' }),
  score: Type.Number({ description: 'hybrid: reciprocal-rank-fusion score; vector: cosine similarity; keyword: BM25' }),
  page_numbers: Type.Array(Type.Integer()),
  chunk_type: Type.String(),
  section_path: Type.Array(Type.String()),
  block_ids: Type.Array(Type.String()),
  scores: Type.Object({ vector: Nullable(Type.Number()), keyword: Nullable(Type.Number()) }, { description: 'Each list\'s own score, null where the chunk was not in it' }),
});

export const SearchResponse = Type.Object({
  query: Type.String(),
  mode: StringEnum(SEARCH_MODES),
  collection_name: Type.String(),
  model: Type.String(),
  provider: Type.String(),
  index_version: Type.Integer({ description: 'Changes whenever the collection\'s index changes' }),
  results: Type.Array(SearchResult),
  total: Type.Integer({ description: 'Number of results' }),
});

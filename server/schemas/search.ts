import { Type } from 'typebox';
import { SEARCH_MODES } from '../core/search/search.js';
import { StringEnum } from './common.js';
import { CollectionName } from './embed.js';

const Page = Type.Integer({ minimum: 1 });

export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 10_000 }),
    job_id: Type.Optional(Type.String({ description: 'Search one job (in the collection it was embedded into)' })),
    collection_name: Type.Optional({
      ...CollectionName,
      description: 'Search a whole collection; with job_id, only that job within it',
    }),
    top_k: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 5, description: 'Results wanted (default 5, as LongParser)' }),
    ),
    index_version: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0 })], {
        description:
          'The index version expected (from the embed answer or an earlier search); 409 INDEX_MISMATCH when the index has changed since: only the current index is kept',
      }),
    ),
    mode: Type.Optional(
      StringEnum(SEARCH_MODES, {
        description:
          "hybrid (default): BM25 and vector lists fused by score (0.4 × BM25 and 0.6 × cosine, each divided by its list's best); vector; keyword (BM25 over the words of the text: Chinese, Japanese and Thai cut into words by ICU, English stemmed, other languages by the exact word with diacritics folded)",
      }),
    ),
    filters: Type.Optional(
      Type.Object(
        {
          chunk_type: Type.Optional(
            Type.Union([Type.String(), Type.Array(Type.String())], { description: 'One chunk type or several' }),
          ),
          pages: Type.Optional(Type.Array(Page, { description: 'Chunks touching any of these pages' })),
          page_from: Type.Optional(Page),
          page_to: Type.Optional(Page),
          section: Type.Optional(
            Type.String({
              minLength: 1,
              description: "Text in any heading of the chunk's section path (case-insensitive)",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    api_key: Type.Optional(
      Type.String({ description: 'For a collection embedded by an OpenAI-compatible server that needs a key' }),
    ),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

export const SearchResult = Type.Object({
  chunk_id: Type.String(),
  job_id: Type.String(),
  text: Type.String({ description: 'The text that was embedded (edited text where the reviewer changed it)' }),
  score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description:
      'Cosine similarity of the query and the chunk (0..1, 1 = same meaning) in every mode; the mode decides the order only. Null only in ' +
      "keyword mode when the collection's model cannot embed the query here (a remote provider without its api_key)",
  }),
  rank_score: Type.Number({
    description:
      'What ordered the results: hybrid: the fused score (0.4 × BM25 / the best BM25 + 0.6 × cosine / the best cosine of the query, at most 1); vector: cosine similarity; keyword: BM25 (higher is better). Tables of contents are placed after the other results whatever their rank_score',
  }),
  page_numbers: Type.Array(Type.Integer()),
  chunk_type: Type.String(),
  section_path: Type.Array(Type.String()),
  block_ids: Type.Array(Type.String()),
  scores: Type.Object(
    { vector: Nullable(Type.Number()), keyword: Nullable(Type.Number()) },
    { description: "Each list's own score, null where the chunk was not in it" },
  ),
  index_version: Type.String({ description: 'The index version the result was found in' }),
  metadata: Type.Object(
    {
      job_id: Type.String(),
      chunk_id: Type.String(),
      chunk_type: Type.String(),
      section_path: Type.Array(Type.String()),
      page_numbers: Type.Array(Type.Integer()),
      block_ids: Type.Array(Type.String()),
      index_version: Type.String(),
      text_hash: Type.String({ description: 'sha256 of the embedded text' }),
      collection: Type.String(),
    },
    { description: "What the vector is stored with (LongParser's metadata)" },
  ),
});

export const SearchResponse = Type.Object({
  query: Type.String(),
  mode: StringEnum(SEARCH_MODES),
  collection_name: Type.String(),
  model: Type.String(),
  provider: Type.String(),
  index_version: Type.String({
    description: "Changes whenever the collection's index changes (digits; a string, as LongParser's)",
  }),
  results: Type.Array(SearchResult),
  total: Type.Integer({ description: 'Number of results' }),
});

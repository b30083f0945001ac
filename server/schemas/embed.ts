import { Type } from 'typebox';
import { EMBEDDING_PROVIDER_NAMES } from '../core/embedding/providers.js';
import { COLLECTION_NAME_PATTERN } from '../core/indexing/collections.js';
import { StringEnum } from './common.js';

export const CollectionName = Type.String({
  pattern: COLLECTION_NAME_PATTERN,
  description: 'Letters, digits, _ - and .; up to 128 characters',
});

export const EmbedBody = Type.Object(
  {
    provider: Type.Optional(
      StringEnum(EMBEDDING_PROVIDER_NAMES, {
        description:
          "local (default): an installed ONNX model in the worker pool; huggingface / sentence-transformers (LongParser's names): the same, " +
          'with `model` a Hugging Face name the catalog has an ONNX export of (sentence-transformers/all-MiniLM-L6-v2); openai: any ' +
          'OpenAI-compatible POST /v1/embeddings; ollama: POST /api/embed',
      }),
    ),
    model: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A GET /models id for local (default: the server's embedding_model); the remote model's name otherwise",
      }),
    ),
    vector_db: Type.Optional(
      Type.String({
        description:
          'The vector store: usearch (HNSW, cosine) is the only one; another name (chroma, faiss, qdrant) is a 400 naming it',
      }),
    ),
    collection_name: Type.Optional({
      ...CollectionName,
      description: 'Target collection (default job-<job_id>); several jobs may share one, with one model',
    }),
    base_url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Remote providers: server address (openai default https://api.openai.com/v1, ollama http://127.0.0.1:11434)',
      }),
    ),
    api_key: Type.Optional(Type.String({ description: 'openai: bearer token for the remote server; never stored' })),
    quantization: Type.Optional(
      StringEnum(['f16', 'f32', 'i8'] as const, {
        description: "A new collection's vector storage (default f16: f32 recall at half the size)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const EmbedAccepted = Type.Object({
  job_id: Type.String(),
  status: Type.Literal('embedding'),
  collection_name: Type.String(),
  collection: Type.String({ description: "The same as collection_name (LongParser's field)" }),
  index_version: Type.String({
    description:
      "The collection's index version once this embed is committed (search reports it; another embed into the collection meanwhile moves it on)",
  }),
  provider: Type.String(),
  model: Type.String(),
  vector_db: Type.Literal('usearch'),
  dimensions: Type.Integer(),
  quantization: Type.String(),
  chunks: Type.Object({
    accepted: Type.Integer({ description: 'Approved and edited chunks of the job' }),
    to_embed: Type.Integer({ description: 'New or changed since the last embed' }),
    unchanged: Type.Integer({ description: 'Same text as already indexed: not embedded again' }),
    removed: Type.Integer({
      description: 'Vectors dropped (changed, no longer accepted, or moved from another collection)',
    }),
  }),
});

export const JobIndex = Type.Object(
  {
    collection_name: Type.String(),
    provider: Type.Union([Type.String(), Type.Null()]),
    model: Type.Union([Type.String(), Type.Null()]),
    dimensions: Type.Union([Type.Integer(), Type.Null()]),
    vectors: Type.Integer({ description: 'Vectors of this job in the collection' }),
    progress: Type.Object(
      { chunks_embedded: Type.Integer(), chunks_total: Type.Integer() },
      { description: 'Of the current or last embed' },
    ),
    indexed_at: Type.Union([Type.String(), Type.Null()]),
  },
  { description: 'Where the job is embedded; null before its first embed' },
);

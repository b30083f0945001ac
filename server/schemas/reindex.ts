import { Type } from 'typebox';
import { EMBEDDING_PROVIDER_NAMES } from '../core/embedding/providers.js';
import { StringEnum } from './common.js';
import { CollectionName } from './embed.js';

export const CollectionParams = Type.Object({ name: CollectionName });

export const ReindexBody = Type.Object(
  {
    embedding_model: Type.String({
      minLength: 1,
      description: "A GET /models id for local (default); the remote model's name for openai and ollama",
    }),
    provider: Type.Optional(
      StringEnum(EMBEDDING_PROVIDER_NAMES, {
        description:
          'As POST /jobs/{job_id}/embed names providers: local (default), huggingface / sentence-transformers (a hub name ' +
          'the catalog has an ONNX export of), openai or ollama (without an api_key: none is ever stored, and a reindex may ' +
          'run on another node or after a restart)',
      }),
    ),
    base_url: Type.Optional(Type.String({ minLength: 1, description: 'Remote providers: server address' })),
  },
  { additionalProperties: false },
);

export const ReindexView = Type.Object({
  reindex_id: Type.String(),
  collection_name: Type.String(),
  state: StringEnum(['running', 'done', 'cancelled', 'failed'] as const, {
    description:
      'running: searches still read the old index; done: the collection switched to the new model at once and the old ' +
      'index is removed; cancelled or failed: the collection kept its model and index, the partial one is removed',
  }),
  provider: Type.String(),
  model: Type.String({ description: 'The model the collection is re-embedded with' }),
  dimensions: Type.Integer(),
  progress: Type.Object({
    chunks_done: Type.Integer(),
    chunks_total: Type.Integer({ description: "The collection's vectors" }),
  }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  collection: Type.Object(
    {
      provider: Type.String(),
      model: Type.String(),
      dimensions: Type.Integer(),
      index_version: Type.String(),
    },
    { description: 'The model searches of the collection use now (the old one until the reindex is done)' },
  ),
});

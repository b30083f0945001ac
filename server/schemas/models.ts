import { Type } from 'typebox';
import { Nullable, StringEnum } from './common.js';

export const ModelStatus = Type.Object(
  {
    id: Type.String({ description: 'The name to pass as `model` to POST /jobs/{job_id}/embed, or as `llm_model` to POST /chat' }),
    name: Type.String(),
    task: StringEnum(['embedding', 'chat'] as const),
    weights: StringEnum(['int8', 'fp32', 'q4_1', 'f32'] as const),
    licence: Type.String(),
    homepage: Type.String(),
    dimensions: Nullable(Type.Integer({ description: 'Embedding models only' })),
    pooling: Nullable(StringEnum(['mean', 'cls'] as const)),
    max_tokens: Type.Integer({ description: 'Embedding: longer inputs are truncated to this many tokens. Chat: the context opened (prompt and answer)' }),
    size_bytes: Type.Integer(),
    installed: Type.Boolean({ description: 'Every file present with its catalogued size (`lectern models verify` hashes them)' }),
    missing: Type.Array(Type.String()),
    default: Type.Boolean({ description: 'The model embed (or chat, for chat models) uses when the request names none' }),
    files: Type.Array(Type.Object({ path: Type.String(), url: Type.String(), size: Type.Integer(), sha256: Type.String() })),
  },
  { $id: 'ModelStatus' },
);

export const ModelList = Type.Object({
  models: Type.Array(Type.Ref('ModelStatus')),
  models_dir: Type.String({ description: 'Where installed models live (under the data directory)' }),
});

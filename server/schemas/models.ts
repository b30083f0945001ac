import { Type } from 'typebox';
import { Nullable, StringEnum } from './common.js';

/** What Lectern read from a GGUF of your own when it was imported. */
export const CustomGguf = Type.Object({
  architecture: Type.String({ description: 'general.architecture: llama, gemma3, qwen2…' }),
  parameters: Type.Integer(),
  quantization: Nullable(Type.String({ description: 'The file type (general.file_type): q4_k_m, q8_0, f16…' })),
  context_length: Nullable(
    Type.Integer({ description: 'The context it was trained with (Lectern opens at most 4,096 tokens: max_tokens)' }),
  ),
  chat_wrapper: Type.String({ description: 'How node-llama-cpp formats a chat for it, chosen from its chat template' }),
  imported_at: Type.String({ format: 'date-time' }),
});

/** How an imported ONNX embedding model was read. */
export const CustomOnnx = Type.Object({
  onnx: Type.String({
    description: "The graph, its path inside the model's folder (model.onnx, onnx/model_quantized.onnx…)",
  }),
  from_request: Type.Array(Type.String(), {
    description:
      'The facts the import request stated rather than the files (pooling, normalize, max_tokens, dimensions, query_prefix, passage_prefix)',
  }),
  imported_at: Type.String({ format: 'date-time' }),
});

const POOLING = StringEnum(['mean', 'cls', 'last'] as const, {
  description: "How token vectors become one: their mean, the first ([CLS]) token's, or the last token's",
});

export const ModelStatus = Type.Object(
  {
    id: Type.String({
      description: 'The name to pass as `model` to POST /jobs/{job_id}/embed, or as `llm_model` to POST /chat',
    }),
    name: Type.String(),
    task: StringEnum(['embedding', 'chat'] as const),
    weights: Type.String({
      description:
        "The catalog's weights (int8, fp32, q4_1, f32), the file type read from an imported GGUF (q4_k_m, q8_0…), or the type of most of an imported ONNX graph's weights (fp32, int8, uint8, fp16)",
    }),
    licence: Type.String(),
    homepage: Type.String(),
    dimensions: Nullable(Type.Integer({ description: 'Embedding models only' })),
    pooling: Nullable(POOLING),
    normalize: Nullable(
      Type.Boolean({
        description:
          "Embedding models: vectors scaled to unit length (sentence-transformers' Normalize module). Null for chat models",
      }),
    ),
    query_prefix: Nullable(
      Type.String({
        description:
          'Embedding models: put before each search query (e5\'s "query: ", bge\'s instruction); empty for none',
      }),
    ),
    passage_prefix: Nullable(
      Type.String({
        description: 'Embedding models: put before each chunk embedded (e5\'s "passage: "); empty for none',
      }),
    ),
    languages: Nullable(
      StringEnum(['english', 'multilingual'] as const, {
        description:
          'Embedding models of the catalog: what they were trained to read, English only or about a hundred languages (a job whose ' +
          '`detected_language` is another is offered a multilingual one). Null for chat models and models of your own',
      }),
    ),
    max_tokens: Type.Integer({
      description:
        'Embedding: longer inputs are truncated to this many tokens. Chat: the context opened (prompt and answer)',
    }),
    size_bytes: Type.Integer(),
    size_approximate: Type.Boolean({
      description:
        "true while some file's size is the publisher's rounded figure: the first pull records the exact one",
    }),
    memory_bytes: Type.Integer({
      description:
        'Memory the model needs to run, an estimate: the file, the context cache Lectern opens, runtime buffers',
    }),
    fits: StringEnum(['comfortably', 'tight', 'no'] as const, {
      description:
        "memory_bytes against this server's memory: `comfortably` (at most 3/4 of the free memory), `tight` (fits the machine, " +
        'not what is free now), `no` (more than the machine has)',
    }),
    suggested: Type.Boolean({ description: 'The chat model suggested for this machine (suggested_chat_model)' }),
    runnable: Type.Boolean({
      description:
        'false: this server cannot run the model yet (its tokenizer); its pull answers 409 MODEL_NOT_RUNNABLE',
    }),
    not_runnable_reason: Nullable(Type.String()),
    installed: Type.Boolean({
      description: 'Every file present with its catalogued size (`lectern models verify` hashes them)',
    }),
    missing: Type.Array(Type.String()),
    default: Type.Boolean({
      description: 'The model embed (or chat, for chat models) uses when the request names none',
    }),
    files: Type.Array(
      Type.Object({
        path: Type.String(),
        url: Type.String({ description: 'Empty for a model imported from a file of your own' }),
        size: Type.Integer({ description: 'Bytes: exact, or rounded as published while size_approximate' }),
        size_approximate: Type.Boolean(),
        sha256: Nullable(
          Type.String({ description: 'Null: the publisher states none and no pull has recorded one yet' }),
        ),
        checksum: Nullable(
          StringEnum(['catalog', 'recorded'] as const, {
            description: 'Where the sha256 comes from: the catalog (the publisher), or the first pull on this server',
          }),
        ),
      }),
    ),
    description: Type.String({ description: 'What the model is for, in a sentence' }),
    partial_bytes: Type.Integer({
      description: 'Bytes of an unfinished download on disk: POST /models/{model_id}/pull resumes from them',
    }),
    pull: Nullable(Type.Ref('PullProgress'), { description: 'The pull running in this server, if any' }),
    custom: Type.Boolean({
      description:
        'true for a model imported from files of your own (POST /models/{model_id}/import under a new id): a GGUF chat model or an ONNX embedding model',
    }),
    gguf: Nullable(CustomGguf, { description: 'What was read from an imported GGUF; null otherwise' }),
    onnx: Nullable(CustomOnnx, { description: 'How an imported ONNX embedding model was read; null otherwise' }),
  },
  { $id: 'ModelStatus' },
);

export const PullProgress = Type.Object(
  {
    model_id: Type.String(),
    file: Type.String({ description: 'The file being worked on (its path in the catalog)' }),
    phase: StringEnum(['download', 'verify'] as const, {
      description: '`verify`: the file is whole and its sha256 is being checked',
    }),
    file_bytes: Type.Integer({
      description: 'Bytes of this file on disk (a resumed download starts from those already there)',
    }),
    file_total: Type.Integer(),
    received_bytes: Type.Integer({ description: 'Bytes of every file of the model on disk' }),
    total_bytes: Type.Integer({
      description: "Bytes the whole model downloads (a wheel's size for files published inside one)",
    }),
  },
  { $id: 'PullProgress' },
);

export const ModelParams = Type.Object({ model_id: Type.String({ minLength: 1, maxLength: 200 }) });

export const PullDone = Type.Object({
  id: Type.String(),
  ok: Type.Boolean(),
  files: Type.Array(Type.Object({ path: Type.String(), ok: Type.Boolean(), problem: Type.Optional(Type.String()) })),
});

export const PullStarted = Type.Object({
  model_id: Type.String(),
  joined: Type.Boolean({ description: 'true when this call follows a pull another caller started' }),
});

/**
 * What an imported ONNX embedding model's files would say, stated in the request instead (or to override
 * them). JSON fields, or multipart fields before the files (as text: "true", "256").
 */
const EmbeddingImportFields = {
  pooling: Type.Optional(POOLING),
  normalize: Type.Optional(
    Type.Boolean({ description: 'Scale vectors to unit length (else read from modules.json: a Normalize module)' }),
  ),
  max_tokens: Type.Optional(
    Type.Integer({
      minimum: 8,
      maximum: 32768,
      description:
        "Tokens per input, special tokens included (else sentence_bert_config.json's max_seq_length, or the tokenizer's; at most config.json's max_position_embeddings)",
    }),
  ),
  dimensions: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 16384,
      description:
        "The vectors' length (else 1_Pooling/config.json, or config.json's hidden_size); checked against a real vector",
    }),
  ),
  query_prefix: Type.Optional(
    Type.String({
      maxLength: 500,
      description: "Put before each search query (else config_sentence_transformers.json's prompts.query)",
    }),
  ),
  passage_prefix: Type.Optional(
    Type.String({
      maxLength: 500,
      description: 'Put before each chunk embedded (else prompts.passage or prompts.document)',
    }),
  ),
};

/** The same fields as they arrive in a multipart form: text. */
export const EmbeddingImportForm = Type.Object({
  pooling: Type.Optional(POOLING),
  normalize: Type.Optional(StringEnum(['true', 'false'] as const)),
  max_tokens: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  dimensions: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  query_prefix: Type.Optional(Type.String({ maxLength: 500 })),
  passage_prefix: Type.Optional(Type.String({ maxLength: 500 })),
});

/** JSON names a path on the server's machine; multipart carries the file itself (read by the route, not by this schema). */
export const ImportBody = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          "JSON: a file (.onnx, .gguf, .json, a wheel) or a folder of the model's files, inside document_roots",
      }),
    ),
    file: Type.Optional(
      Type.String({
        format: 'binary',
        description:
          'multipart/form-data: the model file itself; for an embedding model of your own, one `file` field per file of its folder, each named by its path inside it (`1_Pooling/config.json`)',
      }),
    ),
    ...EmbeddingImportFields,
  },
  { additionalProperties: false },
);

/** POST /models/import: the id travels in the body (a field before the file, for multipart). */
export const NamedImportBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The new model's id (or a catalog id, to import one of its files); required",
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "JSON: the .gguf, or an embedding model's folder, inside document_roots",
      }),
    ),
    file: Type.Optional(
      Type.String({
        format: 'binary',
        description:
          "multipart/form-data: the .gguf itself, or each file of an embedding model's folder named by its path inside it, after the `name` field",
      }),
    ),
    ...EmbeddingImportFields,
  },
  { additionalProperties: false },
);

export const ImportResult = Type.Object({
  model_id: Type.String(),
  imported: Type.Array(Type.String(), {
    description:
      "The model's files placed, each sha256-checked against the catalog (a model of your own: its files, loaded once to check it)",
  }),
  custom: Type.Boolean({
    description:
      'true when the id is new and the files became a model of your own (chat from a GGUF, embedding from an ONNX folder)',
  }),
  missing: Type.Array(Type.String(), { description: "The model's files still missing" }),
  installed: Type.Boolean(),
});

export const ModelList = Type.Object({
  models: Type.Array(Type.Ref('ModelStatus')),
  memory: Type.Object(
    {
      total_bytes: Type.Integer(),
      free_bytes: Type.Integer({ description: 'What the system could give a model now' }),
    },
    { description: "This server's memory, as each model's `fits` was judged" },
  ),
  suggested_chat_model: Nullable(
    Type.String({ description: 'The largest chat model that fits comfortably; null when none does' }),
  ),
  models_dir: Type.String({ description: 'Where installed models live (under the data directory)' }),
});

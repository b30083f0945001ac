import { Type } from 'typebox';
import { LLM_PROVIDERS } from '../core/chat/chat-providers.js';
import { SEARCH_MODES } from '../core/search/search.js';
import { listOf, Nullable, Paging, StringEnum } from './common.js';

const Llm = Type.Object(
  {
    provider: Type.Optional(
      StringEnum(LLM_PROVIDERS, {
        description: 'local (default), openai, ollama or extractive (no model: quotes the sources)',
      }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    base_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const BotParams = Type.Object({ bot_id: Type.String() });
export const BotChatParams = Type.Object({ bot_id: Type.String(), chat_id: Type.String() });
export const ChatParams = Type.Object({ chat_id: Type.String() });

const prompt = Type.String({ maxLength: 20_000, description: "The bot's instructions (its system prompt)" });

export const CreateBotBody = Type.Object(
  {
    prompt_template: Type.Optional(prompt),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    llm: Type.Optional(Llm),
    embedding_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    min_similarity: Type.Optional(Type.Number({ minimum: -1, maximum: 1 })),
  },
  { additionalProperties: false },
);
export const BotCreated = Type.Object({ bot_id: Type.String() });
export const BotStatus = Type.Object({ status: Type.Literal('ok'), bot_id: Type.String() });
export const BotDeleted = Type.Object({ status: Type.Literal('deleted'), bot_id: Type.String() });
export const BuildBody = Type.Object(
  {
    prompt_template: Type.Optional(prompt),
    agent_mode: Type.Optional(Type.Boolean({ description: 'Not supported: true answers 400 NOT_SUPPORTED' })),
    tools: Type.Optional(
      Type.Array(Type.Unknown(), { description: 'Not supported: any tool answers 400 NOT_SUPPORTED' }),
    ),
  },
  { additionalProperties: false },
);
export const PromptBody = Type.Object({ prompt_template: prompt }, { additionalProperties: false });

/** A bot as lists and reads show it. */
export const Bot = Type.Object({
  bot_id: Type.String(),
  name: Nullable(Type.String()),
  prompt_template: Type.String(),
  llm: Type.Object({
    provider: Type.String(),
    model: Type.Optional(Type.String()),
    base_url: Type.Optional(Type.String()),
  }),
  embedding_model: Type.String(),
  top_k: Type.Integer(),
  min_similarity: Type.Number(),
  collection_name: Type.String({ description: "The vector collection that holds the bot's knowledge" }),
  created_at: Type.String(),
  updated_at: Type.String(),
  documents: Type.Integer(),
  chats: Type.Integer(),
});
export const BotList = listOf(Bot, 'Bots, newest first');
export const BotListQuery = Type.Object({ ...Paging });
const IngestStatus = StringEnum(['pending', 'processing', 'success', 'failed'] as const, {
  description:
    "Long-Trainer's words: success once searchable; pending while waiting (queued, or held for a person's review)",
});
export const BotDetail = Type.Object({
  ...Bot.properties,
  document_list: Type.Array(
    Type.Object({
      job_id: Type.String(),
      source_file: Type.String(),
      status: Type.String({ description: "The job's state" }),
      ingest_status: IngestStatus,
      source: Nullable(Type.Record(Type.String(), Type.Unknown())),
      created_at: Type.String(),
    }),
  ),
});

const review = Type.Optional(
  Type.Boolean({
    description: 'true: the document waits at ready_for_review and reaches the bot when a person finalizes it',
  }),
);
/** One document asked for: its job, or why it was not added. */
const Added = {
  job_id: Nullable(
    Type.String({ description: 'Its job (poll GET /jobs/{job_id}: `ingest_status`); null when it was not added' }),
  ),
  status: StringEnum(['pending', 'duplicate', 'failed'] as const, {
    description: 'pending: a new job; duplicate: the bot already holds this content (its job); failed: see `error`',
  }),
  source: Type.String({ description: 'The file path, URL or article title' }),
  error: Type.Optional(
    Type.Object({ code: Type.String(), message: Type.String() }, { description: 'Why it was not added' }),
  ),
};
export const PathBody = Type.Object(
  { path: Type.String({ minLength: 1, maxLength: 4096 }), review },
  { additionalProperties: false },
);
export const PathAdded = Type.Object({
  job_id: Type.Optional(Type.String({ description: 'A file: its job' })),
  status: Type.String({ description: 'pending, or duplicate when the bot already holds this content (its job)' }),
  job_ids: Type.Optional(Type.Array(Type.String(), { description: 'A folder: one job per document added' })),
  documents: Type.Optional(
    Type.Array(Type.Object(Added), { description: 'A folder: each file with its job or why it was not added' }),
  ),
  truncated: Type.Optional(Type.Boolean({ description: 'The folder held more files than max_folder_files' })),
});
export const LinkBody = Type.Object(
  { links: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 50 }), review },
  { additionalProperties: false },
);
export const QueryBody = Type.Object(
  {
    search_query: Type.String({ minLength: 1, maxLength: 300 }),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(-[a-z]+)?$' })),
    max_pages: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 2 })),
    review,
  },
  { additionalProperties: false },
);
export const DocumentsAdded = Type.Object({
  status: Type.Literal('ok'),
  documents: Type.Array(
    Type.Object({
      ...Added,
      url: Type.String({ description: 'The link as given' }),
      final_url: Nullable(Type.String({ description: 'Where its redirects led; null when it was not fetched' })),
    }),
    {
      description: 'Each link, in the order given',
    },
  ),
});
export const ArticlesAdded = Type.Object({
  status: Type.Literal('ok'),
  documents: Type.Array(
    Type.Object({
      ...Added,
      title: Type.String(),
      url: Type.String({ description: "The article's page" }),
      revision_id: Type.Integer({ description: 'The revision read' }),
    }),
    {
      description: 'Each article found (disambiguation pages skipped)',
    },
  ),
});

export const ChatCreated = Type.Object({ chat_id: Type.String() });
/** Stream event (`stream: true`): the sources as soon as retrieval is done. */
export const BotSourcesEvent = Type.Object({
  chat_id: Nullable(Type.String()),
  message_id: Type.String(),
  sources: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});
export const ChatIds = Type.Array(Type.String(), { description: "The bot's chat ids, oldest first" });
/** A source an answer cites; the OpenAI-compatible answer cites the same way (openai.ts). */
export const Citation = Type.Object({
  chunk_id: Type.String(),
  job_id: Type.String(),
  source: Type.String(),
  page_numbers: Type.Array(Type.Integer()),
  quote: Type.String(),
});
const WebSource = Type.Object({ title: Type.String(), url: Type.String(), snippet: Type.String() });
export const Message = Type.Object({
  message_id: Type.String(),
  question: Type.String(),
  answer: Type.Unknown({ description: 'Text; for a schema answer, the JSON value' }),
  citations: Type.Array(Citation),
  web_sources: Type.Array(WebSource),
  not_found: Type.Boolean(),
  status: Type.String({
    description: 'complete, cancelled or failed; pending_review while held for approval, then complete or rejected',
  }),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  usage: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: 'Tokens and times of the answer' })),
  rating: Type.Optional(
    Nullable(
      StringEnum(['up', 'down'] as const, {
        description: "A reader's verdict (POST /chats/{chat_id}/messages/{message_id}/feedback)",
      }),
    ),
  ),
  rating_note: Type.Optional(Nullable(Type.String())),
  thread_id: Type.Optional(
    Nullable(Type.String({ description: 'Set while pending_review: pass it to POST /chats/{chat_id}/resume' })),
  ),
  review: Type.Optional(
    Nullable(
      Type.Object(
        { action: StringEnum(['approve', 'edit', 'reject'] as const), reviewer_id: Type.String(), at: Type.String() },
        { description: 'Who resumed a held answer, how and when' },
      ),
    ),
  ),
  response: Type.Optional(
    Type.String({ description: "A vision answer (Long-Trainer's name for it; the same as `answer`)" }),
  ),
  images: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        media_type: Type.String(),
        sha256: Type.String(),
        bytes: Type.Integer(),
        text_chars: Type.Integer({ description: 'Characters the OCR read' }),
      }),
      {
        description: "A vision question's images",
      },
    ),
  ),
  created_at: Type.String(),
});
export const ChatHistory = Type.Object({
  chat_id: Type.String(),
  bot_id: Type.String(),
  messages: Type.Array(Message),
});
export const ChatHistoryQuery = Type.Object({ order: Type.Optional(StringEnum(['oldest', 'newest'] as const)) });
export const MessageBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 20_000 }),
    stream: Type.Optional(Type.Boolean()),
    web_search: Type.Optional(Type.Boolean()),
    schema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'A JSON Schema: the answer is a JSON value valid against it',
      }),
    ),
    require_approval: Type.Optional(
      Type.Boolean({
        description: 'Hold the answer as pending_review with a thread_id until POST /chats/{chat_id}/resume',
      }),
    ),
  },
  { additionalProperties: false },
);
export const BotResumeBody = Type.Object(
  {
    thread_id: Type.String(),
    action: StringEnum(['approve', 'edit', 'reject'] as const),
    edited_answer: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000 })),
  },
  { additionalProperties: false },
);
export const VectorstoreBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 20_000 }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    mode: Type.Optional(StringEnum(SEARCH_MODES)),
  },
  { additionalProperties: false },
);
export const VectorstoreResult = Type.Object({
  documents: Type.Array(
    Type.Object({
      content: Type.String(),
      metadata: Type.Object({
        chunk_id: Type.String(),
        job_id: Type.String(),
        source: Type.String(),
        page_numbers: Type.Array(Type.Integer()),
        section_path: Type.Array(Type.String()),
        score: Nullable(
          Type.Number({
            description:
              "Cosine similarity (0..1); null when the collection's model cannot embed the query here (keyword mode)",
          }),
        ),
      }),
    }),
  ),
});

import { Type } from 'typebox';
import { LLM_PROVIDERS } from '../core/chat/chat-providers.js';
import { MESSAGE_STATUSES as TURN_STATUSES } from '../store/repos/conversations-repo.js';
import { Nullable, StringEnum } from './common.js';

const options = {
  llm_provider: Type.Optional(
    StringEnum(LLM_PROVIDERS, {
      description:
        'local (default: llama.cpp with a GGUF from the model manager), openai (any OpenAI-compatible chat API), ollama, extractive (no language ' +
        "model: the best supporting sentences, quoted); LongParser's openrouter, groq and gemini speak the OpenAI protocol at their known " +
        'addresses (base_url overrides), with the key from api_key or the environment (OPENROUTER_API_KEY, GROQ_API_KEY, GEMINI_API_KEY or ' +
        "GOOGLE_API_KEY; OPENAI_API_KEY for openai) and LongParser's default model when llm_model is left out",
    }),
  ),
  llm_model: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "local: a chat model id from GET /models (default: the chat_model setting); openai/ollama: the server's model name",
    }),
  ),
  top_k: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 20, description: 'Chunks retrieved to ground the answer (default 5)' }),
  ),
  base_url: Type.Optional(
    Type.String({ minLength: 1, description: "openai/ollama: the server's address (OpenAI: with or without /v1)" }),
  ),
  api_key: Type.Optional(Type.String({ description: 'openai: sent as a bearer token, never stored' })),
  max_tokens: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 4096, description: 'Longest answer in tokens (default 256)' }),
  ),
  temperature: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 2,
      description: 'Default 0: the same question over the same sources gives the same answer',
    }),
  ),
  min_similarity: Type.Optional(
    Type.Number({
      minimum: -1,
      maximum: 1,
      description:
        'Chunks less similar to the question (cosine) are not used; with none left the answer says it was not found (default 0.25)',
    }),
  ),
};

export const ChatConfig = Type.Object(options, { additionalProperties: false });

export const ChatBody = Type.Object(
  {
    session_id: Type.Optional(
      Type.String({
        description:
          'Continue this session (earlier answers inform follow-ups); without it a new session is started for job_id',
      }),
    ),
    job_id: Type.Optional(
      Type.String({ description: 'The job whose approved, embedded content answers (needed without session_id)' }),
    ),
    question: Type.String({ minLength: 1, maxLength: 4000 }),
    require_approval: Type.Optional(
      Type.Boolean({ description: 'Hold the answer as pending_review until POST /chat/resume' }),
    ),
    stream: Type.Optional(
      Type.Boolean({ description: 'Answer as Server-Sent Events: sources, token…, done (or error)' }),
    ),
    idempotency_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "With session_id: a repeat of the request with the same key in that session answers with the first request's turn (also while it is still being answered), never asking the provider again",
      }),
    ),
    config: Type.Optional(ChatConfig),
    ...options,
  },
  { additionalProperties: false },
);

export const SessionBody = Type.Object(
  { job_id: Type.String({ minLength: 1 }), title: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

export const SessionParams = Type.Object({ session_id: Type.String() });

export const SessionDeleted = Type.Object({ status: Type.Literal('deleted'), session_id: Type.String() });

const Source = Type.Object({
  label: Type.String({ description: 'How the prompt named the chunk (S1, S2…); answers cite it as [S1]' }),
  chunk_id: Type.String(),
  score: Type.Number({
    description: 'Cosine similarity of the question and the chunk (0..1), as POST /search reports it',
  }),
  text: Type.String(),
  page_numbers: Type.Array(Type.Integer()),
  section_path: Type.Array(Type.String()),
});

const Citation = Type.Object({
  label: Type.String(),
  chunk_id: Type.String(),
  page_numbers: Type.Array(Type.Integer()),
});

const Review = Nullable(
  Type.Object(
    { action: StringEnum(['approve', 'edit', 'reject'] as const), reviewer_id: Type.String(), at: Type.String() },
    { description: 'Who resumed the turn, how and when' },
  ),
);

const Usage = Type.Record(Type.String(), Type.Number(), {
  description: 'Timings (ms: retrieval, prompt, load, first_token, generation, total) and token counts',
});

/** Stream events (`stream: true`): the sources as soon as retrieval is done, then each generated piece of text. */
export const ChatSourcesEvent = Type.Object({
  session_id: Type.String(),
  turn_id: Type.String(),
  sources: Type.Array(Source),
});
export const TokenEvent = Type.Object({ text: Type.String() });

export const ChatAnswer = Type.Object({
  session_id: Type.String(),
  turn_id: Type.String(),
  status: StringEnum(TURN_STATUSES),
  answer: Type.String({
    description: 'The answer; while pending_review, the draft awaiting review; empty once rejected',
  }),
  sources: Type.Array(Source, { description: 'The chunks retrieved (approved content only), best first' }),
  citations: Type.Array(Citation, {
    description: 'The sources the answer cites; citations of anything not retrieved are dropped',
  }),
  cited_by: Nullable(
    StringEnum(['model', 'overlap'] as const, {
      description: "model: the answer's own [S#] markers; overlap: the model cited nothing, attributed by shared words",
    }),
  ),
  not_found: Type.Boolean({ description: 'Nothing relevant was found, and the answer says so' }),
  thread_id: Nullable(Type.String({ description: 'Set while pending_review: pass it to POST /chat/resume' })),
  llm_provider: Type.String(),
  llm_model: Nullable(Type.String()),
  review: Review,
  usage: Usage,
});

export const Turn = Type.Object({
  turn_id: Type.String(),
  seq: Type.Integer(),
  question: Type.String(),
  status: StringEnum(TURN_STATUSES),
  answer: Nullable(Type.String({ description: 'Null while pending_review and after reject' })),
  draft: Type.String({ description: 'What the provider wrote' }),
  not_found: Type.Boolean(),
  sources: Type.Array(Source),
  citations: Type.Array(Citation),
  cited_by: Nullable(Type.String()),
  llm_provider: Type.String(),
  llm_model: Nullable(Type.String()),
  thread_id: Nullable(Type.String()),
  asked_by: Type.String({ description: 'X-Reviewer of the request that asked' }),
  review: Review,
  rating: Nullable(
    StringEnum(['up', 'down'] as const, {
      description: "A reader's verdict (POST /chat/sessions/{session_id}/turns/{turn_id}/feedback)",
    }),
  ),
  rating_note: Nullable(Type.String()),
  usage: Usage,
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  created_at: Type.String(),
  completed_at: Nullable(Type.String()),
});

export const Session = Type.Object({
  session_id: Type.String(),
  job_id: Type.String(),
  title: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
  turn_count: Type.Integer(),
  turns: Type.Array(Turn),
  history: Type.Array(
    Type.Object({ question: Type.String(), answer: Nullable(Type.String()), status: Type.String() }),
    { description: "Questions and answers only (LongParser's shape)" },
  ),
});

export const ResumeBody = Type.Object(
  {
    session_id: Type.String(),
    thread_id: Type.String(),
    action: StringEnum(['approve', 'edit', 'reject'] as const),
    edited_answer: Type.Optional(Type.String({ minLength: 1, description: 'Required with action edit' })),
  },
  { additionalProperties: false },
);

export const TurnParams = Type.Object({ session_id: Type.String(), turn_id: Type.String() });
export const RatingBody = Type.Object(
  { rating: StringEnum(['up', 'down'] as const), note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
  { additionalProperties: false },
);
export const TurnRating = Type.Object({
  session_id: Type.String(),
  turn_id: Type.String(),
  rating: StringEnum(['up', 'down'] as const),
  note: Nullable(Type.String()),
});

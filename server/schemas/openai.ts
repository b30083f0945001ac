import { Type } from 'typebox';
import { Citation } from './bots.js';
import { StringEnum } from './common.js';

// The subset of OpenAI's chat completions API a bot answers; other fields callers send are accepted and ignored.

const Part = Type.Object({ type: Type.String(), text: Type.Optional(Type.String()) }, { additionalProperties: true });
const ChatMessage = Type.Object(
  {
    role: StringEnum(['system', 'developer', 'user', 'assistant', 'tool'] as const),
    content: Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(Part, { maxItems: 100 }), Type.Null()]),
  },
  { additionalProperties: true },
);

export const CompletionBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'A bot: `bot:<bot_id>` as GET /v1/models lists it, or the bare bot id',
    }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 500 }),
    stream: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(
      Type.Object(
        {
          type: StringEnum(['text', 'json_object', 'json_schema'] as const),
          json_schema: Type.Optional(
            Type.Object(
              {
                name: Type.Optional(Type.String()),
                schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
                strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
              },
              { additionalProperties: true },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);

export const Completion = Type.Object({
  id: Type.String(),
  object: Type.Literal('chat.completion'),
  created: Type.Integer(),
  model: Type.String(),
  choices: Type.Array(
    Type.Object({
      index: Type.Integer(),
      message: Type.Object({
        role: Type.Literal('assistant'),
        content: Type.String(),
        refusal: Type.Null(),
        citations: Type.Array(Citation),
      }),
      finish_reason: Type.String(),
      logprobs: Type.Null(),
    }),
  ),
  usage: Type.Object({
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
  }),
});

export const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      object: Type.Literal('model'),
      created: Type.Integer(),
      owned_by: Type.String(),
      name: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

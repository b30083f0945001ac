import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { answerSchemaOfRequest } from '../../core/bots/schema-answer.js';
import type { PriorTurn } from '../../core/chat/prompt.js';
import { AppError, describeFailure } from '../../core/errors.js';
import { dataStream, errors } from '../../schemas/common.js';
import { Completion, CompletionBody, ModelList } from '../../schemas/openai.js';
import { abortOnHangUp, openSse } from '../sse.js';
import type { ServerDeps } from '../services.js';

const tags = ['openai'];
const PREFIX = 'bot:';

type Msg = { role: string; content: string | { type: string; text?: string }[] | null };
const textOf = (m: Msg): string =>
  typeof m.content === 'string'
    ? m.content
    : (m.content ?? []).flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');

/**
 * The conversation as a bot takes it: the last user message is the question, earlier user/assistant pairs
 * the history. System messages are the caller's: the bot keeps its own instructions.
 */
function conversation(messages: Msg[]): { question: string; prior: PriorTurn[] } {
  const last = messages.findLastIndex((m) => m.role === 'user');
  const question = last >= 0 ? textOf(messages[last]!).trim() : '';
  if (!question)
    throw new AppError('VALIDATION_FAILED', 'messages must end with a user message that has text', [
      { field: 'messages' },
    ]);
  const prior: PriorTurn[] = [];
  let asked: string | null = null;
  for (const m of messages.slice(0, last)) {
    if (m.role === 'user') asked = textOf(m);
    else if (m.role === 'assistant' && asked !== null) {
      prior.push({ question: asked, answer: textOf(m) });
      asked = null;
    }
  }
  return { question, prior };
}

/** Any OpenAI client can talk to a bot: GET /v1/models lists bots, POST /v1/chat/completions asks one. */
export const openaiRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/v1/models',
    {
      schema: { tags, summary: 'Bots as OpenAI models (`bot:<bot_id>`)', response: { 200: ModelList, ...errors(401) } },
    },
    async (req) => {
      const data = [];
      for (let skip = 0; ; skip += 500) {
        const page = await deps.bots.list({ skip, limit: 500 }, req.access?.scope);
        data.push(
          ...page.items.map((b) => ({
            id: `${PREFIX}${b.bot_id}`,
            object: 'model' as const,
            created: Math.floor(Date.parse(b.created_at) / 1000),
            owned_by: 'lectern',
            name: b.name,
          })),
        );
        if (data.length >= page.total || page.items.length === 0) return { object: 'list' as const, data };
      }
    },
  );

  app.post(
    '/v1/chat/completions',
    {
      schema: {
        tags,
        summary: 'Ask a bot as an OpenAI chat model',
        description:
          'The last user message is asked of the bot named by `model`, with the earlier user/assistant pairs as history (nothing is stored). ' +
          "`stream: true` answers in OpenAI's chunk format ending with `data: [DONE]`; `response_format` json_schema (or json_object) goes the schema " +
          'path (422 SCHEMA_UNSATISFIED when the answer cannot be made valid). The message carries `citations`. The key goes in X-API-Key or ' +
          '`Authorization: Bearer`.',
        body: CompletionBody,
        response: {
          200: {
            description: 'The completion; with `stream: true` its chunks',
            content: {
              'application/json': { schema: Completion },
              ...dataStream(
                'A chat.completion.chunk as JSON, `{"error": {code, message}}` if the answer failed, then [DONE]',
              ).content,
            },
          },
          ...errors(400, 401, 403, 404, 409, 422, 500, 502, 503),
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const botId = body.model.startsWith(PREFIX) ? body.model.slice(PREFIX.length) : body.model;
      const { question, prior } = conversation(body.messages as Msg[]);
      const format = body.response_format;
      const schema =
        format?.type === 'json_schema'
          ? (format.json_schema?.schema ?? {})
          : format?.type === 'json_object'
            ? { type: 'object' }
            : undefined;
      const answerSchema = answerSchemaOfRequest({ schema, stream: body.stream });
      const prepared = await deps.botChat.prepareStateless(botId, prior, { query: question, schema: answerSchema });
      const id = `chatcmpl-${randomUUID()}`;
      const created = Math.floor(Date.now() / 1000);
      const model = `${PREFIX}${botId}`;
      const contentOf = (answer: unknown) => (typeof answer === 'string' ? answer : JSON.stringify(answer));
      if (!body.stream) {
        const m = await deps.botChat.answer(prepared, { signal: abortOnHangUp(reply) });
        const promptTokens = Math.round(m.usage.prompt_tokens ?? 0);
        const completionTokens = Math.round(m.usage.completion_tokens ?? 0);
        return {
          id,
          object: 'chat.completion' as const,
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant' as const,
                content: contentOf(m.answer),
                refusal: null,
                citations: m.citations,
              },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        };
      }
      const sse = openSse(reply);
      const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
        sse.data({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
          ...extra,
        });
      chunk({ role: 'assistant', content: '' }, null);
      try {
        const m = await deps.botChat.answer(prepared, {
          signal: sse.signal,
          onToken: (text) => chunk({ content: text }, null),
        });
        // The citations come with the last chunk, once the answer is checked against its sources.
        chunk({}, 'stop', { citations: m.citations });
        sse.data('[DONE]');
      } catch (err) {
        req.log.warn({ err }, 'openai-compatible stream failed');
        sse.data({ error: describeFailure(err) });
      }
      sse.end();
      return reply;
    },
  );
};

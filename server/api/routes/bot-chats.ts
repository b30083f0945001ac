import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { answerSchemaOfRequest } from '../../core/bots/schema-answer.js';
import {
  BotChatParams,
  BotParams,
  BotResumeBody,
  BotSourcesEvent,
  ChatCreated,
  ChatHistory,
  ChatHistoryQuery,
  ChatIds,
  ChatParams,
  Message,
  MessageBody,
  VectorstoreBody,
  VectorstoreResult,
} from '../../schemas/bots.js';
import { TokenEvent } from '../../schemas/chat.js';
import { errors, jsonOrEventStream, StreamError } from '../../schemas/common.js';
import { abortOnHangUp, streamAnswer } from '../sse.js';
import type { ServerDeps } from '../services.js';

const tags = ['bots'];

/** A bot's chats, its messages and direct search of its index. */
export const botChatsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/bots/:bot_id/chats',
    {
      schema: {
        tags,
        summary: 'Start a chat with a bot',
        params: BotParams,
        response: { 200: ChatCreated, ...errors(401, 404) },
      },
    },
    async (req) => deps.botChat.createChat(req.params.bot_id),
  );

  app.get(
    '/bots/:bot_id/chats',
    {
      schema: {
        tags,
        summary: "The bot's chat ids",
        params: BotParams,
        response: { 200: ChatIds, ...errors(401, 404) },
      },
    },
    async (req) => deps.botChat.listChats(req.params.bot_id),
  );

  app.get(
    '/chats/:chat_id',
    {
      schema: {
        tags,
        summary: "A chat's messages",
        params: ChatParams,
        querystring: ChatHistoryQuery,
        response: { 200: ChatHistory, ...errors(400, 401, 404) },
      },
    },
    async (req) => deps.botChat.getChat(req.params.chat_id, req.query.order),
  );

  app.post(
    '/bots/:bot_id/chats/:chat_id',
    {
      schema: {
        tags,
        summary: 'Ask the bot',
        description:
          "Answered from the bot's documents with citations (checked against what was retrieved); with nothing relevant the answer says so without asking a model. " +
          'Earlier messages of the chat serve follow-ups. `stream: true`: text/event-stream with `sources`, `token` ({text}), then `done` (the message) or `error`; ' +
          'hanging up stops generation. `schema` (a JSON Schema): `answer` is a JSON value valid against it (the local model decodes under a grammar, remote ones get ' +
          'a JSON-schema response format; validated with Ajv, one retry with the errors; still invalid: 422 SCHEMA_UNSATISFIED with `errors` and `raw` of the retry and the first attempt in `previous`; a schema ' +
          'that does not compile: 400 SCHEMA_INVALID; with `stream`: 400 STREAM_WITH_SCHEMA; nothing relevant: `not_found` with a null answer). `web_search: true`: results of the SearxNG-compatible API at web_search_url join the sources and are listed in ' +
          '`web_sources` (409 WEB_SEARCH_UNAVAILABLE when none is configured). 404 BOT_NOT_FOUND / CHAT_NOT_FOUND (a chat of another bot too); 503 ' +
          "MODEL_NOT_INSTALLED when the bot's local model is missing. `require_approval: true` holds the answer as `pending_review` with a `thread_id` " +
          '(the answer shown is the draft) until POST /chats/{chat_id}/resume; not with `schema` (400).',
        params: BotChatParams,
        body: MessageBody,
        response: {
          200: jsonOrEventStream(
            Message,
            { sources: BotSourcesEvent, token: TokenEvent, done: Message, error: StreamError },
            'The message; with `stream: true` its events',
          ),
          ...errors(400, 401, 403, 404, 409, 422, 500, 502, 503),
        },
      },
    },
    async (req, reply) => {
      const { stream, schema, ...ask } = req.body;
      // Checked before anything runs: stream with schema is 400, a schema Ajv cannot compile is 400.
      const answerSchema = answerSchemaOfRequest({ schema, stream });
      const prepared = await deps.botChat.prepare(req.params.bot_id, req.params.chat_id, {
        ...ask,
        schema: answerSchema,
      });
      if (!stream) return deps.botChat.answer(prepared, { signal: abortOnHangUp(reply) });
      return streamAnswer(reply, req.log, (ev) => deps.botChat.answer(prepared, ev));
    },
  );

  app.post(
    '/chats/:chat_id/resume',
    {
      schema: {
        tags,
        summary: 'Finish an answer held for approval: approve, edit (with edited_answer) or reject',
        description:
          "As POST /chat/resume does for jobs: once, recorded with the reviewer (X-Reviewer, else the key's name) and the time. 404 CHAT_NOT_FOUND / " +
          'THREAD_NOT_FOUND (a thread of another chat too); 409 INVALID_STATE when it was already resumed.',
        params: ChatParams,
        body: BotResumeBody,
        response: { 200: Message, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.botChat.resume(req.params.chat_id, req.body, req.reviewer),
  );

  app.post(
    '/bots/:bot_id/vectorstore',
    {
      schema: {
        tags,
        summary: "Search the bot's index directly (no model)",
        description:
          'The same hybrid search chats use (mode: hybrid, vector or keyword), over every document of the bot.',
        params: BotParams,
        body: VectorstoreBody,
        response: { 200: VectorstoreResult, ...errors(400, 401, 404) },
      },
    },
    async (req) => deps.botChat.vectorstore(req.params.bot_id, req.body),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ChatAnswer,
  ChatBody,
  ChatSourcesEvent,
  RatingBody,
  ResumeBody,
  Session,
  SessionBody,
  SessionDeleted,
  SessionParams,
  TokenEvent,
  TurnParams,
  TurnRating,
} from '../../schemas/chat.js';
import { errors, jsonOrEventStream, StreamError } from '../../schemas/common.js';
import { abortOnHangUp, streamAnswer } from '../sse.js';
import type { ServerDeps } from '../services.js';

const tags = ['chat'];

export const chatRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/chat/sessions',
    {
      schema: {
        tags,
        summary: 'Start a chat session about one job',
        body: SessionBody,
        response: { 201: Session, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await deps.chat.createSession(req.body, req.reviewer)),
  );

  app.get(
    '/chat/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'A session with its turns: question, answer, sources, status, who asked and who reviewed, times',
        params: SessionParams,
        response: { 200: Session, ...errors(401, 404) },
      },
    },
    async (req) => deps.chat.getSession(req.params.session_id),
  );

  app.delete(
    '/chat/sessions/:session_id',
    {
      schema: {
        tags,
        summary: 'Delete a chat session with all its turns (questions, answers, sources)',
        description:
          'Gone for good, not hidden: GET answers 404 SESSION_NOT_FOUND afterwards, as does a second DELETE.',
        params: SessionParams,
        response: { 200: SessionDeleted, ...errors(401, 403, 404) },
      },
    },
    async (req) => deps.chat.deleteSession(req.params.session_id),
  );

  app.post(
    '/chat/sessions/:session_id/turns/:turn_id/feedback',
    {
      schema: {
        tags,
        summary: "Rate an answer (up or down, with a note), as a bot's answers are rated",
        description:
          'The rating shows on the turn (GET /chat/sessions/{session_id}); rating again replaces it. 404 SESSION_NOT_FOUND / MESSAGE_NOT_FOUND.',
        params: TurnParams,
        body: RatingBody,
        response: { 200: TurnRating, ...errors(400, 401, 404) },
      },
    },
    async (req) => deps.chat.rate(req.params.session_id, req.params.turn_id, req.body),
  );

  app.post(
    '/chat',
    {
      schema: {
        tags,
        summary: "Ask a question, answered from the job's approved content with citations",
        description:
          "Retrieves from the job's index (approved and edited chunks only, similar enough to the question), answers with the chosen provider " +
          'and cites chunks with their pages; citations of anything not retrieved are dropped. With nothing relevant the answer says so ' +
          '(`not_found`). `llm_provider`, `llm_model`, `top_k`… are read at the top level and inside `config`. `require_approval`: the answer ' +
          'waits as `pending_review` with a `thread_id` for POST /chat/resume. `idempotency_key` (with session_id): a repeat answers with the ' +
          "first request's turn, also while that one is still being answered. `stream: true`: text/event-stream with events `sources` (as soon " +
          'as retrieval is done), `token` ({text}), then `done` (the answer, as without streaming) or `error` ({code, message}); closing the ' +
          'connection stops generation. Errors found before the stream starts answer as usual: 404 SESSION_NOT_FOUND / JOB_NOT_FOUND / ' +
          'MODEL_NOT_FOUND, 409 INVALID_STATE (job not embedded yet), 503 MODEL_NOT_INSTALLED (the message says how to install it), 400 URL_INVALID ' +
          '(a base_url that is not http(s) or carries credentials). Found at the provider request (an `error` event once streaming): 502 ' +
          'LLM_PROVIDER_FAILED, 403 URL_NOT_ALLOWED (base_url on a loopback, private or metadata address not listed in the setting ' +
          'allowed_private_hosts; nothing is sent to it).',
        body: ChatBody,
        response: {
          200: jsonOrEventStream(
            ChatAnswer,
            { sources: ChatSourcesEvent, token: TokenEvent, done: ChatAnswer, error: StreamError },
            'The answer; with `stream: true` its events',
          ),
          ...errors(400, 401, 403, 404, 409, 500, 502, 503),
        },
      },
    },
    async (req, reply) => {
      const { stream, ...ask } = req.body;
      const prepared = await deps.chat.prepare(ask, req.reviewer);
      if (!stream) return deps.chat.answer(prepared, { signal: abortOnHangUp(reply) });
      return streamAnswer(reply, req.log, (ev) => deps.chat.answer(prepared, ev));
    },
  );

  app.post(
    '/chat/resume',
    {
      schema: {
        tags,
        summary: 'Finish an answer held for approval: approve, edit (with edited_answer) or reject',
        description:
          "The reviewer is the X-Reviewer header (else the API key's name) and is recorded on the turn. 404 THREAD_NOT_FOUND for a thread not " +
          'in the session; 409 INVALID_STATE when the thread was already resumed.',
        body: ResumeBody,
        response: { 200: ChatAnswer, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.chat.resume(req.body, req.reviewer),
  );
};

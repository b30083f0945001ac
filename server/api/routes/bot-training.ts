import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BotParams } from '../../schemas/bots.js';
import { errors, Nullable, StringEnum } from '../../schemas/common.js';
import type { ServerDeps } from '../services.js';

const tags = ['bots'];

const FeedbackParams = Type.Object({ chat_id: Type.String(), message_id: Type.String() });
const FeedbackBody = Type.Object(
  { rating: StringEnum(['up', 'down'] as const), note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
  { additionalProperties: false },
);
const Feedback = Type.Object({
  chat_id: Type.String(),
  message_id: Type.String(),
  rating: Type.String(),
  note: Nullable(Type.String()),
});
const Trained = Type.Object({
  message: Type.String(),
  csv_path: Nullable(
    Type.String({ description: "The pairs as CSV (Long-Trainer's field); null when there were none" }),
  ),
  job_id: Nullable(Type.String({ description: 'The review job (`chat_training`) holding the pairs' })),
  pairs: Type.Integer(),
});

/** A bot learns from its chats only what a person approved: ratings, then a review job of the pairs. */
export const botTrainingRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/chats/:chat_id/messages/:message_id/feedback',
    {
      schema: {
        tags,
        summary: 'Rate an answer (up or down)',
        description: 'A down-rated answer is never offered for training. 404 CHAT_NOT_FOUND / MESSAGE_NOT_FOUND.',
        params: FeedbackParams,
        body: FeedbackBody,
        response: { 200: Feedback, ...errors(400, 401, 404) },
      },
    },
    async (req) => deps.chatTraining.feedback(req.params.chat_id, req.params.message_id, req.body),
  );

  app.post(
    '/bots/:bot_id/train-chats',
    {
      schema: {
        tags,
        summary: "Put the bot's answered chats up for review, to learn from",
        description:
          "The bot's answered, not yet trained, not down-rated question-answer pairs become one review job (`source.kind: chat_training`): each " +
          'question a heading `Qn.`, its answer the paragraphs under it, in `ready_for_review`. Approve, edit or reject them in the desk; ' +
          "finalizing embeds what was kept into the bot, and once it is in the bot's index those pairs are marked trained (nothing is marked before: a job " +
          'deleted before then, its embedding failed or not, gives its pairs back). A CSV of the pairs is written ' +
          '(`csv_path`). No pairs: `No new chats found for training.` with `csv_path: null`.',
        params: BotParams,
        response: { 200: Trained, ...errors(401, 404, 502) },
      },
    },
    async (req) => deps.chatTraining.train(req.params.bot_id),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../core/errors.js';
import { errors } from '../../schemas/common.js';
import { BotParams } from '../../schemas/bots.js';
import {
  ConversationDeleted,
  ConversationList,
  ConversationParams,
  ConversationSummary,
  RenameBody,
} from '../../schemas/conversations.js';
import { JobParams } from '../../schemas/jobs.js';
import type { ServerDeps } from '../services.js';

const tags = ['conversations'];

/**
 * Past conversations of a job or a bot, one model for both: listed with their titles and sizes, renamed and
 * deleted. Their messages are read and asked through the jobs chat (/chat/sessions/{id}) and the bots chat
 * (/chats/{id}) as before.
 */
export const conversationsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  const existing = async (id: string) => {
    const c = await deps.conversations.get(id);
    if (!c) throw new AppError('CONVERSATION_NOT_FOUND', `conversation ${id} does not exist`);
    return c;
  };

  const listed = (summary: string) => ({ tags, summary, response: { 200: ConversationList, ...errors(401, 404) } });
  /** The conversations of a job or a bot, which must exist. */
  const summariesOf = async (owner: { job_id: string } | { bot_id: string }) => {
    const [kind, id] = 'job_id' in owner ? (['job', owner.job_id] as const) : (['bot', owner.bot_id] as const);
    const found = kind === 'job' ? deps.store.lookups.existingJobs([id]) : deps.store.lookups.existingBots([id]);
    if (!(await found).has(id))
      throw new AppError(kind === 'job' ? 'JOB_NOT_FOUND' : 'BOT_NOT_FOUND', `${kind} ${id} does not exist`);
    return { conversations: await deps.conversations.summaries(owner) };
  };
  app.get(
    '/jobs/:job_id/conversations',
    { schema: { ...listed("A job's chat sessions, oldest first, with their sizes"), params: JobParams } },
    async (req) => summariesOf(req.params),
  );
  app.get(
    '/bots/:bot_id/conversations',
    { schema: { ...listed("A bot's chats (text and vision), oldest first, with their sizes"), params: BotParams } },
    async (req) => summariesOf(req.params),
  );

  app.patch(
    '/conversations/:conversation_id',
    {
      schema: {
        tags,
        summary: 'Rename a conversation (null clears its title)',
        params: ConversationParams,
        body: RenameBody,
        response: { 200: ConversationSummary, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const id = req.params.conversation_id;
      const renamed = await deps.conversations.rename(id, req.body.title?.trim() || null);
      if (!renamed) throw new AppError('CONVERSATION_NOT_FOUND', `conversation ${id} does not exist`);
      return renamed;
    },
  );

  app.delete(
    '/conversations/:conversation_id',
    {
      schema: {
        tags,
        summary: 'Delete a conversation with all its messages',
        description:
          'Gone for good: its questions, answers, sources and ratings. A second DELETE answers 404 CONVERSATION_NOT_FOUND.',
        params: ConversationParams,
        response: { 200: ConversationDeleted, ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const id = req.params.conversation_id;
      await existing(id);
      await deps.conversations.delete(id);
      return { status: 'deleted' as const, conversation_id: id };
    },
  );
};

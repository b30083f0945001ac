import { eq, inArray } from 'drizzle-orm';
import { bots, conversations, jobIndexes, jobs } from '../../../drizzle/pg/schema.js';
import type { LookupsRepo } from '../repos/lookups-repo.js';
import type { PgContext } from './context.js';

export function pgLookups({ conn }: PgContext): LookupsRepo {
  /** Which of the ids the key column's table holds. */
  const existing = async (key: typeof bots.botId | typeof jobs.jobId, ids: readonly string[]) =>
    new Set(
      ids.length
        ? (
            await conn()
              .select({ id: key })
              .from(key.table)
              .where(inArray(key, [...ids]))
          ).map((r) => r.id)
        : [],
    );
  /** The conversation's bot or job: undefined for no such conversation, or one of neither. */
  const ofConversation = async (owner: typeof conversations.botId | typeof conversations.jobId, id: string) =>
    (await conn().select({ owner }).from(conversations).where(eq(conversations.conversationId, id)))[0]?.owner ??
    undefined;
  return {
    existingBots: (ids) => existing(bots.botId, ids),
    existingJobs: (ids) => existing(jobs.jobId, ids),
    botOfJob: async (jobId) =>
      (await conn().select({ botId: jobs.botId }).from(jobs).where(eq(jobs.jobId, jobId)))[0]?.botId,
    botOfChat: (chatId) => ofConversation(conversations.botId, chatId),
    jobOfChatSession: (sessionId) => ofConversation(conversations.jobId, sessionId),
    collectionMembers: async (name) =>
      conn()
        .select({ jobId: jobIndexes.jobId, botId: jobs.botId })
        .from(jobIndexes)
        .leftJoin(jobs, eq(jobs.jobId, jobIndexes.jobId))
        .where(eq(jobIndexes.collection, name)),
  };
}

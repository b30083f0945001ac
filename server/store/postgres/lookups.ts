import { eq, inArray } from 'drizzle-orm';
import { bots, conversations, jobIndexes, jobs } from '../../../drizzle/pg/schema.js';
import type { LookupsRepo } from '../repos/lookups-repo.js';
import type { PgContext } from './context.js';

export function pgLookups({ conn }: PgContext): LookupsRepo {
  return {
    existingBots: async (ids) =>
      new Set(
        ids.length
          ? (
              await conn()
                .select({ id: bots.botId })
                .from(bots)
                .where(inArray(bots.botId, [...ids]))
            ).map((r) => r.id)
          : [],
      ),
    existingJobs: async (ids) =>
      new Set(
        ids.length
          ? (
              await conn()
                .select({ id: jobs.jobId })
                .from(jobs)
                .where(inArray(jobs.jobId, [...ids]))
            ).map((r) => r.id)
          : [],
      ),
    botOfJob: async (jobId) =>
      (await conn().select({ botId: jobs.botId }).from(jobs).where(eq(jobs.jobId, jobId)))[0]?.botId,
    botOfChat: async (chatId) =>
      (
        await conn()
          .select({ botId: conversations.botId })
          .from(conversations)
          .where(eq(conversations.conversationId, chatId))
      )[0]?.botId ?? undefined,
    jobOfChatSession: async (sessionId) =>
      (
        await conn()
          .select({ jobId: conversations.jobId })
          .from(conversations)
          .where(eq(conversations.conversationId, sessionId))
      )[0]?.jobId ?? undefined,
    collectionMembers: async (name) =>
      conn()
        .select({ jobId: jobIndexes.jobId, botId: jobs.botId })
        .from(jobIndexes)
        .leftJoin(jobs, eq(jobs.jobId, jobIndexes.jobId))
        .where(eq(jobIndexes.collection, name)),
  };
}

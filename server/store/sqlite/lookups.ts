import { eq, inArray } from 'drizzle-orm';
import { bots, conversations, jobIndexes, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import type { LookupsRepo } from '../repos/lookups-repo.js';
import type { TxGate } from './tx-gate.js';

export function sqliteLookups(db: Db, gate: TxGate): LookupsRepo {
  return {
    existingBots: (ids) =>
      gate.call(
        () =>
          new Set(
            ids.length
              ? db
                  .select({ id: bots.botId })
                  .from(bots)
                  .where(inArray(bots.botId, [...ids]))
                  .all()
                  .map((r) => r.id)
              : [],
          ),
      ),
    existingJobs: (ids) =>
      gate.call(
        () =>
          new Set(
            ids.length
              ? db
                  .select({ id: jobs.jobId })
                  .from(jobs)
                  .where(inArray(jobs.jobId, [...ids]))
                  .all()
                  .map((r) => r.id)
              : [],
          ),
      ),
    botOfJob: (jobId) =>
      gate.call(() => db.select({ botId: jobs.botId }).from(jobs).where(eq(jobs.jobId, jobId)).get()?.botId),
    botOfChat: (chatId) =>
      gate.call(
        () =>
          db
            .select({ botId: conversations.botId })
            .from(conversations)
            .where(eq(conversations.conversationId, chatId))
            .get()?.botId ?? undefined,
      ),
    jobOfChatSession: (sessionId) =>
      gate.call(
        () =>
          db
            .select({ jobId: conversations.jobId })
            .from(conversations)
            .where(eq(conversations.conversationId, sessionId))
            .get()?.jobId ?? undefined,
      ),
    collectionMembers: (name) =>
      gate.call(() =>
        // Each member's bot comes with it (one read, not one per member job).
        db
          .select({ jobId: jobIndexes.jobId, botId: jobs.botId })
          .from(jobIndexes)
          .leftJoin(jobs, eq(jobs.jobId, jobIndexes.jobId))
          .where(eq(jobIndexes.collection, name))
          .all(),
      ),
  };
}

import { eq, inArray } from 'drizzle-orm';
import { bots, conversations, jobIndexes, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import type { LookupsRepo } from '../repos/lookups-repo.js';
import type { TxGate } from './tx-gate.js';

export function sqliteLookups(db: Db, gate: TxGate): LookupsRepo {
  /** Which of the ids the key column's table holds. */
  const existing = (key: typeof bots.botId | typeof jobs.jobId, ids: readonly string[]) =>
    new Set(
      ids.length
        ? db
            .select({ id: key })
            .from(key.table)
            .where(inArray(key, [...ids]))
            .all()
            .map((r) => r.id)
        : [],
    );
  /** The conversation's bot or job: undefined for no such conversation, or one of neither. */
  const ofConversation = (owner: typeof conversations.botId | typeof conversations.jobId, id: string) =>
    db.select({ owner }).from(conversations).where(eq(conversations.conversationId, id)).get()?.owner ?? undefined;
  return {
    existingBots: (ids) => gate.call(() => existing(bots.botId, ids)),
    existingJobs: (ids) => gate.call(() => existing(jobs.jobId, ids)),
    botOfJob: (jobId) =>
      gate.call(() => db.select({ botId: jobs.botId }).from(jobs).where(eq(jobs.jobId, jobId)).get()?.botId),
    botOfChat: (chatId) => gate.call(() => ofConversation(conversations.botId, chatId)),
    jobOfChatSession: (sessionId) => gate.call(() => ofConversation(conversations.jobId, sessionId)),
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

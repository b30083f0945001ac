import { and, asc, count, desc, eq, getTableColumns, inArray, isNotNull, notInArray } from 'drizzle-orm';
import { blocks, bots, conversations, jobs } from '../../../drizzle/pg/schema.js';
import { chatCount, documentColumns, documentCount } from '../queries/bots.js';
import type { BotDocumentRecord, BotsRepo } from '../repos/bots-repo.js';
import { botOf, botValues } from '../rows/bots.js';
import type { PgContext } from './context.js';

export function pgBots({ conn, all }: PgContext): BotsRepo {
  return {
    async insert(b) {
      const [row] = await conn().insert(bots).values(botValues(b)).returning();
      return botOf(row!);
    },
    async get(botId) {
      const [b] = await conn().select().from(bots).where(eq(bots.botId, botId));
      return b ? botOf(b) : null;
    },
    async list({ skip, limit }, only) {
      const where = only ? inArray(bots.botId, [...only]) : undefined;
      const [counted] = await conn().select({ n: count() }).from(bots).where(where);
      const rows = await conn()
        .select({ ...getTableColumns(bots), documents: documentCount, chats: chatCount })
        .from(bots)
        .where(where)
        .orderBy(desc(bots.createdAt), desc(bots.botId))
        .limit(limit)
        .offset(skip);
      return {
        items: rows.map((r) => ({ ...botOf(r), documents: r.documents, chats: r.chats })),
        total: counted?.n ?? 0,
        skip,
        limit,
      };
    },
    async counts(botId) {
      const [[documents], [chats]] = await all([
        () => conn().select({ n: count() }).from(jobs).where(eq(jobs.botId, botId)),
        () => conn().select({ n: count() }).from(conversations).where(eq(conversations.botId, botId)),
      ]);
      return { documents: documents?.n ?? 0, chats: chats?.n ?? 0 };
    },
    async setPrompt(botId, prompt, at) {
      const [b] = await conn()
        .update(bots)
        .set({ promptTemplate: prompt, updatedAt: at })
        .where(eq(bots.botId, botId))
        .returning();
      return b ? botOf(b) : null;
    },
    delete: async (botId) =>
      (await conn().delete(bots).where(eq(bots.botId, botId)).returning({ id: bots.botId })).length > 0,

    documents: async (botId) =>
      (await conn()
        .select(documentColumns(jobs))
        .from(jobs)
        .where(eq(jobs.botId, botId))
        .orderBy(desc(jobs.createdAt), desc(jobs.jobId))) as BotDocumentRecord[],
    async document(jobId) {
      const [d] = await conn()
        .select(documentColumns(jobs))
        .from(jobs)
        .where(and(eq(jobs.jobId, jobId), isNotNull(jobs.botId)));
      return (d as BotDocumentRecord | undefined) ?? null;
    },
    allDocumentIds: async () =>
      (await conn().select({ id: jobs.jobId }).from(jobs).where(isNotNull(jobs.botId))).map((r) => r.id),
    async liveDocumentWithHash(botId, sha256) {
      const [d] = await conn()
        .select({ jobId: jobs.jobId })
        .from(jobs)
        .where(and(eq(jobs.botId, botId), eq(jobs.fileHash, sha256), notInArray(jobs.status, ['failed', 'cancelled'])))
        .limit(1);
      return d?.jobId ?? null;
    },
    recordIndexFailure: async (jobId, failure) =>
      (
        await conn()
          .update(jobs)
          .set({ errorCode: failure.code, errorMessage: failure.message })
          .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'finalized')))
          .returning({ id: jobs.jobId })
      ).length > 0,
    documentBlocks: (jobId) =>
      conn()
        .select({ type: blocks.type, text: blocks.text, status: blocks.status })
        .from(blocks)
        .where(eq(blocks.jobId, jobId))
        .orderBy(asc(blocks.orderIndex)),
  };
}

import { and, asc, count, desc, eq, getTableColumns, inArray, isNotNull, notInArray } from 'drizzle-orm';
import { blocks, bots, conversations, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { chatCount, documentColumns, documentCount } from '../queries/bots.js';
import type { BotDocumentRecord, BotsRepo } from '../repos/bots-repo.js';
import { botOf, botValues } from '../rows/bots.js';
import type { TxGate } from './tx-gate.js';

export function sqliteBots(db: Db, gate: TxGate): BotsRepo {
  return {
    insert: (b) => gate.call(() => botOf(db.insert(bots).values(botValues(b)).returning().get())),
    get: (botId) =>
      gate.call(() => {
        const b = db.select().from(bots).where(eq(bots.botId, botId)).get();
        return b ? botOf(b) : null;
      }),
    list: ({ skip, limit }, only) =>
      gate.call(() => {
        const where = only ? inArray(bots.botId, [...only]) : undefined;
        const total = db.select({ n: count() }).from(bots).where(where).get()?.n ?? 0;
        const rows = db
          .select({ ...getTableColumns(bots), documents: documentCount, chats: chatCount })
          .from(bots)
          .where(where)
          .orderBy(desc(bots.createdAt), desc(bots.botId))
          .limit(limit)
          .offset(skip)
          .all();
        return {
          items: rows.map((r) => ({ ...botOf(r), documents: r.documents, chats: r.chats })),
          total,
          skip,
          limit,
        };
      }),
    counts: (botId) =>
      gate.call(() => ({
        documents: db.select({ n: count() }).from(jobs).where(eq(jobs.botId, botId)).get()?.n ?? 0,
        chats: db.select({ n: count() }).from(conversations).where(eq(conversations.botId, botId)).get()?.n ?? 0,
      })),
    setPrompt: (botId, prompt, at) =>
      gate.call(() => {
        const b = db
          .update(bots)
          .set({ promptTemplate: prompt, updatedAt: at })
          .where(eq(bots.botId, botId))
          .returning()
          .get();
        return b ? botOf(b) : null;
      }),
    delete: (botId) => gate.call(() => db.delete(bots).where(eq(bots.botId, botId)).run().changes > 0),

    documents: (botId) =>
      gate.call(
        () =>
          db
            .select(documentColumns(jobs))
            .from(jobs)
            .where(eq(jobs.botId, botId))
            .orderBy(desc(jobs.createdAt), desc(jobs.jobId))
            .all() as BotDocumentRecord[],
      ),
    document: (jobId) =>
      gate.call(
        () =>
          (db
            .select(documentColumns(jobs))
            .from(jobs)
            .where(and(eq(jobs.jobId, jobId), isNotNull(jobs.botId)))
            .get() as BotDocumentRecord | undefined) ?? null,
      ),
    allDocumentIds: () =>
      gate.call(() =>
        db
          .select({ id: jobs.jobId })
          .from(jobs)
          .where(isNotNull(jobs.botId))
          .all()
          .map((r) => r.id),
      ),
    liveDocumentWithHash: (botId, sha256) =>
      gate.call(
        () =>
          db
            .select({ jobId: jobs.jobId })
            .from(jobs)
            .where(
              and(eq(jobs.botId, botId), eq(jobs.fileHash, sha256), notInArray(jobs.status, ['failed', 'cancelled'])),
            )
            .get()?.jobId ?? null,
      ),
    recordIndexFailure: (jobId, failure) =>
      gate.call(
        () =>
          db
            .update(jobs)
            .set({ errorCode: failure.code, errorMessage: failure.message })
            .where(and(eq(jobs.jobId, jobId), eq(jobs.status, 'finalized')))
            .run().changes > 0,
      ),
    documentBlocks: (jobId) =>
      gate.call(() =>
        db
          .select({ type: blocks.type, text: blocks.text, status: blocks.status })
          .from(blocks)
          .where(eq(blocks.jobId, jobId))
          .orderBy(asc(blocks.orderIndex))
          .all(),
      ),
  };
}

import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { conversations, messages } from '../../../drizzle/pg/schema.js';
import { learnableWhere, messagesWhere, ownerWhere } from '../queries/conversations.js';
import type { ConversationsRepo } from '../repos/conversations-repo.js';
import { columnsOf, conversationOf, conversationValues, messageOf, valuesOf } from '../rows/conversations.js';
import type { PgContext } from './context.js';

export function pgConversations(ctx: PgContext): ConversationsRepo {
  const { conn } = ctx;
  const one = async (where: SQL) => {
    const [row] = await conn().select().from(messages).where(where);
    return row ? messageOf(row) : null;
  };
  const joined = (where: SQL) =>
    conn()
      .select({ m: messages })
      .from(messages)
      .innerJoin(conversations, eq(conversations.conversationId, messages.conversationId))
      .where(where);
  return {
    async create(c) {
      await conn().insert(conversations).values(conversationValues(c));
      return c;
    },
    async get(id) {
      const [row] = await conn().select().from(conversations).where(eq(conversations.conversationId, id));
      return row ? conversationOf(row) : null;
    },
    listOf: async (owner) =>
      (
        await conn()
          .select()
          .from(conversations)
          .where(ownerWhere(conversations, owner))
          .orderBy(asc(conversations.createdAt), asc(conversations.conversationId))
      ).map(conversationOf),
    countOf: async (owner) =>
      (await conn().select({ n: count() }).from(conversations).where(ownerWhere(conversations, owner)))[0]?.n ?? 0,
    async messageCounts(ids) {
      const rows = ids.length
        ? await conn()
            .select({ id: messages.conversationId, n: count() })
            .from(messages)
            .where(inArray(messages.conversationId, [...ids]))
            .groupBy(messages.conversationId)
        : [];
      return new Map(ids.map((id) => [id, rows.find((r) => r.id === id)?.n ?? 0]));
    },
    async rename(id, title, at) {
      const [row] = await conn()
        .update(conversations)
        .set({ title, updatedAt: at })
        .where(eq(conversations.conversationId, id))
        .returning();
      return row ? conversationOf(row) : null;
    },
    delete: (id) =>
      ctx.transaction(async () => {
        await conn().delete(messages).where(eq(messages.conversationId, id));
        return (
          (
            await conn()
              .delete(conversations)
              .where(eq(conversations.conversationId, id))
              .returning({ id: conversations.conversationId })
          ).length > 0
        );
      }),

    messages: async (id, order = 'oldest') =>
      (
        await conn()
          .select()
          .from(messages)
          .where(eq(messages.conversationId, id))
          .orderBy(order === 'newest' ? desc(messages.seq) : asc(messages.seq))
      ).map(messageOf),
    message: (id) => one(eq(messages.messageId, id)),
    messageByThread: (threadId) => one(eq(messages.threadId, threadId)),
    messageByIdempotencyKey: (id, key) => one(and(eq(messages.conversationId, id), eq(messages.idempotencyKey, key))!),
    addMessage: (m) =>
      ctx.transaction(async () => {
        // The conversation's row is locked while its next seq is taken: two nodes answering in one
        // conversation at once append one after the other instead of colliding on the seq.
        await conn().execute(
          sql`SELECT 1 FROM ${conversations} WHERE ${conversations.conversationId} = ${m.conversation_id} FOR UPDATE`,
        );
        const [row] = await conn()
          .insert(messages)
          .values({
            ...valuesOf(m),
            seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM ${messages} WHERE ${messages.conversationId} = ${m.conversation_id})`,
          })
          .returning();
        await conn()
          .update(conversations)
          .set({ updatedAt: m.created_at })
          .where(eq(conversations.conversationId, m.conversation_id));
        return messageOf(row!);
      }),
    async updateMessage(id, change, whileStatus) {
      const where = whileStatus
        ? and(eq(messages.messageId, id), eq(messages.status, whileStatus))
        : eq(messages.messageId, id);
      return (
        (await conn().update(messages).set(columnsOf(change)).where(where).returning({ id: messages.messageId }))
          .length === 1
      );
    },
    async updateMessages(ids, change, whileTrainingJob) {
      if (!ids.length) return 0;
      return (
        await conn()
          .update(messages)
          .set(columnsOf(change))
          .where(messagesWhere(messages, ids, whileTrainingJob))
          .returning({ id: messages.messageId })
      ).length;
    },
    learnableMessages: async (botId) =>
      (
        await joined(learnableWhere(conversations, messages, botId)!).orderBy(
          asc(conversations.createdAt),
          asc(messages.seq),
        )
      ).map((r) => messageOf(r.m)),
    messagesAboutJob: async (jobId) =>
      (await joined(eq(conversations.jobId, jobId)).orderBy(asc(messages.conversationId), asc(messages.seq))).map((r) =>
        messageOf(r.m),
      ),
  };
}

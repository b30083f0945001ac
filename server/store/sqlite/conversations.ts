import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { conversations, messages } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import { learnableWhere, messagesWhere, ownerWhere } from '../queries/conversations.js';
import type { ConversationsRepo } from '../repos/conversations-repo.js';
import { columnsOf, conversationOf, conversationValues, messageOf, valuesOf } from '../rows/conversations.js';
import type { TxGate } from './tx-gate.js';

export function sqliteConversations(db: Db, gate: TxGate): ConversationsRepo {
  const one = (where: SQL) => {
    const row = db.select().from(messages).where(where).get();
    return row ? messageOf(row) : null;
  };
  return {
    create: (c) =>
      gate.call(() => {
        db.insert(conversations).values(conversationValues(c)).run();
        return c;
      }),
    get: (id) =>
      gate.call(() => {
        const row = db.select().from(conversations).where(eq(conversations.conversationId, id)).get();
        return row ? conversationOf(row) : null;
      }),
    listOf: (owner) =>
      gate.call(() =>
        db
          .select()
          .from(conversations)
          .where(ownerWhere(conversations, owner))
          .orderBy(asc(conversations.createdAt), asc(conversations.conversationId))
          .all()
          .map(conversationOf),
      ),
    countOf: (owner) =>
      gate.call(
        () => db.select({ n: count() }).from(conversations).where(ownerWhere(conversations, owner)).get()?.n ?? 0,
      ),
    messageCounts: (ids) =>
      gate.call(() => {
        const rows = ids.length
          ? db
              .select({ id: messages.conversationId, n: count() })
              .from(messages)
              .where(inArray(messages.conversationId, [...ids]))
              .groupBy(messages.conversationId)
              .all()
          : [];
        return new Map(ids.map((id) => [id, rows.find((r) => r.id === id)?.n ?? 0]));
      }),
    rename: (id, title, at) =>
      gate.call(() => {
        const row = db
          .update(conversations)
          .set({ title, updatedAt: at })
          .where(eq(conversations.conversationId, id))
          .returning()
          .get();
        return row ? conversationOf(row) : null;
      }),
    delete: (id) =>
      gate.call(() =>
        db.transaction((tx) => {
          // Messages first: they hold the answers and their sources.
          tx.delete(messages).where(eq(messages.conversationId, id)).run();
          return tx.delete(conversations).where(eq(conversations.conversationId, id)).run().changes > 0;
        }),
      ),

    messages: (id, order = 'oldest') =>
      gate.call(() =>
        db
          .select()
          .from(messages)
          .where(eq(messages.conversationId, id))
          .orderBy(order === 'newest' ? desc(messages.seq) : asc(messages.seq))
          .all()
          .map(messageOf),
      ),
    message: (id) => gate.call(() => one(eq(messages.messageId, id))),
    messageByThread: (threadId) => gate.call(() => one(eq(messages.threadId, threadId))),
    messageByIdempotencyKey: (id, key) =>
      gate.call(() => one(and(eq(messages.conversationId, id), eq(messages.idempotencyKey, key))!)),
    addMessage: (m) =>
      gate.call(() =>
        db.transaction((tx) => {
          const row = tx
            .insert(messages)
            .values({
              ...valuesOf(m),
              seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ${m.conversation_id})`,
            })
            .returning()
            .get();
          tx.update(conversations)
            .set({ updatedAt: m.created_at })
            .where(eq(conversations.conversationId, m.conversation_id))
            .run();
          return messageOf(row);
        }),
      ),
    updateMessage: (id, change, whileStatus) =>
      gate.call(() => {
        const where = whileStatus
          ? and(eq(messages.messageId, id), eq(messages.status, whileStatus))
          : eq(messages.messageId, id);
        return db.update(messages).set(columnsOf(change)).where(where).run().changes === 1;
      }),
    updateMessages: (ids, change, whileTrainingJob) =>
      gate.call(() => {
        if (!ids.length) return 0;
        return db
          .update(messages)
          .set(columnsOf(change))
          .where(messagesWhere(messages, ids, whileTrainingJob))
          .run().changes;
      }),
    learnableMessages: (botId) =>
      gate.call(() =>
        db
          .select({ m: messages })
          .from(messages)
          .innerJoin(conversations, eq(conversations.conversationId, messages.conversationId))
          .where(learnableWhere(conversations, messages, botId))
          .orderBy(asc(conversations.createdAt), asc(messages.seq))
          .all()
          .map((r) => messageOf(r.m)),
      ),
    messagesAboutJob: (jobId) =>
      gate.call(() =>
        db
          .select({ m: messages })
          .from(messages)
          .innerJoin(conversations, eq(conversations.conversationId, messages.conversationId))
          .where(eq(conversations.jobId, jobId))
          .orderBy(asc(messages.conversationId), asc(messages.seq))
          .all()
          .map((r) => messageOf(r.m)),
      ),
  };
}

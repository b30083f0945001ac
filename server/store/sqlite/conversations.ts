import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import { conversations, messages } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';
import type { ConversationRecord, ConversationsRepo, MessageChange, MessageRecord } from '../repos/conversations-repo.js';
import type { TxGate } from './tx-gate.js';

type ConversationRow = typeof conversations.$inferSelect;
type MessageRow = typeof messages.$inferSelect;

const conversationOf = (r: ConversationRow): ConversationRecord => ({
  conversation_id: r.conversationId,
  scope: r.scope as ConversationRecord['scope'],
  job_id: r.jobId,
  bot_id: r.botId,
  collection: r.collection,
  kind: r.kind as ConversationRecord['kind'],
  title: r.title,
  created_by: r.createdBy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const messageOf = (r: MessageRow): MessageRecord => ({
  message_id: r.messageId,
  conversation_id: r.conversationId,
  seq: r.seq,
  question: r.question,
  status: r.status as MessageRecord['status'],
  draft: r.draft,
  answer: r.answer,
  answer_format: r.answerFormat as MessageRecord['answer_format'],
  not_found: r.notFound,
  sources: r.sources,
  citations: r.citations,
  cited_by: r.citedBy as MessageRecord['cited_by'],
  web_sources: r.webSources,
  images: r.images,
  provider: r.provider,
  model: r.model,
  usage: r.usage,
  error: r.error ?? null,
  thread_id: r.threadId,
  asked_by: r.askedBy,
  reviewer_action: r.reviewerAction as MessageRecord['reviewer_action'],
  reviewer_id: r.reviewerId,
  reviewed_at: r.reviewedAt,
  rating: r.rating as MessageRecord['rating'],
  rating_note: r.ratingNote,
  training_job_id: r.trainingJobId,
  trained_at: r.trainedAt,
  idempotency_key: r.idempotencyKey,
  created_at: r.createdAt,
  completed_at: r.completedAt,
});

/** A change in the table's own column names; keys left undefined are not touched. */
function columnsOf(c: MessageChange): Partial<typeof messages.$inferInsert> {
  const set: Partial<typeof messages.$inferInsert> = {
    status: c.status, draft: c.draft, answer: c.answer, citations: c.citations, sources: c.sources, reviewerAction: c.reviewer_action,
    reviewerId: c.reviewer_id, reviewedAt: c.reviewed_at, completedAt: c.completed_at, rating: c.rating, ratingNote: c.rating_note,
    trainingJobId: c.training_job_id, trainedAt: c.trained_at,
  };
  return Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
}

const ownerWhere = (owner: { bot_id: string } | { job_id: string }): SQL =>
  'bot_id' in owner ? eq(conversations.botId, owner.bot_id) : eq(conversations.jobId, owner.job_id);

export function sqliteConversations(db: Db, gate: TxGate): ConversationsRepo {
  const one = (where: SQL) => {
    const row = db.select().from(messages).where(where).get();
    return row ? messageOf(row) : null;
  };
  return {
    create: (c) =>
      gate.call(() => {
        db.insert(conversations)
          .values({
            conversationId: c.conversation_id, scope: c.scope, jobId: c.job_id, botId: c.bot_id, collection: c.collection, kind: c.kind,
            title: c.title, createdBy: c.created_by, createdAt: c.created_at, updatedAt: c.updated_at,
          })
          .run();
        return c;
      }),
    get: (id) =>
      gate.call(() => {
        const row = db.select().from(conversations).where(eq(conversations.conversationId, id)).get();
        return row ? conversationOf(row) : null;
      }),
    listOf: (owner) =>
      gate.call(() => db.select().from(conversations).where(ownerWhere(owner)).orderBy(asc(conversations.createdAt), asc(conversations.conversationId)).all().map(conversationOf)),
    countOf: (owner) => gate.call(() => db.select({ n: count() }).from(conversations).where(ownerWhere(owner)).get()?.n ?? 0),
    rename: (id, title, at) =>
      gate.call(() => {
        const row = db.update(conversations).set({ title, updatedAt: at }).where(eq(conversations.conversationId, id)).returning().get();
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
        db.select().from(messages).where(eq(messages.conversationId, id)).orderBy(order === 'newest' ? desc(messages.seq) : asc(messages.seq)).all().map(messageOf),
      ),
    message: (id) => gate.call(() => one(eq(messages.messageId, id))),
    messageByThread: (threadId) => gate.call(() => one(eq(messages.threadId, threadId))),
    messageByIdempotencyKey: (id, key) => gate.call(() => one(and(eq(messages.conversationId, id), eq(messages.idempotencyKey, key))!)),
    addMessage: (m) =>
      gate.call(() =>
        db.transaction((tx) => {
          const row = tx
            .insert(messages)
            .values({
              messageId: m.message_id, conversationId: m.conversation_id, question: m.question, status: m.status, provider: m.provider, createdAt: m.created_at,
              draft: m.draft, answer: m.answer, answerFormat: m.answer_format, notFound: m.not_found, sources: m.sources, citations: m.citations,
              citedBy: m.cited_by, webSources: m.web_sources, images: m.images, model: m.model, usage: m.usage, error: m.error, threadId: m.thread_id,
              askedBy: m.asked_by, reviewerAction: m.reviewer_action, reviewerId: m.reviewer_id, reviewedAt: m.reviewed_at, rating: m.rating,
              ratingNote: m.rating_note, trainingJobId: m.training_job_id, trainedAt: m.trained_at, idempotencyKey: m.idempotency_key,
              completedAt: m.completed_at,
              seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ${m.conversation_id})`,
            })
            .returning()
            .get();
          tx.update(conversations).set({ updatedAt: m.created_at }).where(eq(conversations.conversationId, m.conversation_id)).run();
          return messageOf(row);
        }),
      ),
    updateMessage: (id, change, whileStatus) =>
      gate.call(() => {
        const where = whileStatus ? and(eq(messages.messageId, id), eq(messages.status, whileStatus)) : eq(messages.messageId, id);
        return db.update(messages).set(columnsOf(change)).where(where).run().changes === 1;
      }),
    updateMessages: (ids, change, whileTrainingJob) =>
      gate.call(() => {
        if (!ids.length) return 0;
        const byId = inArray(messages.messageId, [...ids]);
        const where = whileTrainingJob ? and(byId, eq(messages.trainingJobId, whileTrainingJob), isNull(messages.trainedAt)) : byId;
        return db.update(messages).set(columnsOf(change)).where(where).run().changes;
      }),
    learnableMessages: (botId) =>
      gate.call(() =>
        db
          .select({ m: messages })
          .from(messages)
          .innerJoin(conversations, eq(conversations.conversationId, messages.conversationId))
          .where(
            and(
              eq(conversations.botId, botId),
              eq(messages.status, 'complete'),
              eq(messages.notFound, false),
              eq(messages.answerFormat, 'text'),
              isNull(messages.trainedAt),
              or(isNull(messages.rating), eq(messages.rating, 'up')),
            ),
          )
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

/**
 * Rows of the conversations tables <-> the store's records, for both backends: the SQLite and PostgreSQL
 * tables have the same columns under the same names (drizzle/schema.ts, drizzle/pg/schema.ts).
 */
import type { conversations, messages } from '../../../drizzle/schema.js';
import type { ConversationRecord, MessageChange, MessageRecord, NewMessage } from '../repos/conversations-repo.js';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export const conversationOf = (r: ConversationRow): ConversationRecord => ({
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

export const messageOf = (r: MessageRow): MessageRecord => ({
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
export function columnsOf(c: MessageChange): Partial<typeof messages.$inferInsert> {
  const set: Partial<typeof messages.$inferInsert> = {
    status: c.status,
    draft: c.draft,
    answer: c.answer,
    citations: c.citations,
    sources: c.sources,
    reviewerAction: c.reviewer_action,
    reviewerId: c.reviewer_id,
    reviewedAt: c.reviewed_at,
    completedAt: c.completed_at,
    rating: c.rating,
    ratingNote: c.rating_note,
    trainingJobId: c.training_job_id,
    trainedAt: c.trained_at,
  };
  return Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined));
}

export const conversationValues = (c: ConversationRecord) => ({
  conversationId: c.conversation_id,
  scope: c.scope,
  jobId: c.job_id,
  botId: c.bot_id,
  collection: c.collection,
  kind: c.kind,
  title: c.title,
  createdBy: c.created_by,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

/** A new message's columns, all but its seq (which each backend works out in the insert). */
export const valuesOf = (m: NewMessage) => ({
  messageId: m.message_id,
  conversationId: m.conversation_id,
  question: m.question,
  status: m.status,
  provider: m.provider,
  createdAt: m.created_at,
  draft: m.draft,
  answer: m.answer,
  answerFormat: m.answer_format,
  notFound: m.not_found,
  sources: m.sources,
  citations: m.citations,
  citedBy: m.cited_by,
  webSources: m.web_sources,
  images: m.images,
  model: m.model,
  usage: m.usage,
  error: m.error,
  threadId: m.thread_id,
  askedBy: m.asked_by,
  reviewerAction: m.reviewer_action,
  reviewerId: m.reviewer_id,
  reviewedAt: m.reviewed_at,
  rating: m.rating,
  ratingNote: m.rating_note,
  trainingJobId: m.training_job_id,
  trainedAt: m.trained_at,
  idempotencyKey: m.idempotency_key,
  completedAt: m.completed_at,
});

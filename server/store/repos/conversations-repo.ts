import type { BotCitationRow, ChatSourceRow, MessageCitationRow } from '../../../drizzle/schema.js';

export type { BotCitationRow, ChatSourceRow, MessageCitationRow };
export const CONVERSATION_SCOPES = ['job', 'bot', 'collection'] as const;
export type ConversationScope = (typeof CONVERSATION_SCOPES)[number];
export const MESSAGE_STATUSES = ['complete', 'pending_review', 'rejected', 'cancelled', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A conversation about one scope: a job's content, a bot's collection, or a named collection. */
export interface ConversationRecord {
  conversation_id: string;
  scope: ConversationScope;
  job_id: string | null;
  bot_id: string | null;
  collection: string | null;
  kind: 'text' | 'vision';
  title: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * One question and its answer, as stored. The texts a person wrote or read (question, draft, answer,
 * rating_note) are stored as given: sealing them is the conversations service's business.
 */
export interface MessageRecord {
  message_id: string;
  conversation_id: string;
  seq: number;
  question: string;
  status: MessageStatus;
  draft: string;
  answer: string | null;
  answer_format: 'text' | 'json';
  not_found: boolean;
  sources: ChatSourceRow[];
  citations: MessageCitationRow[];
  cited_by: 'model' | 'overlap' | null;
  web_sources: { title: string; url: string; snippet: string }[];
  images: { name: string; media_type: string; sha256: string; bytes: number; text_chars: number }[];
  provider: string;
  model: string | null;
  usage: Record<string, number>;
  error: { code: string; message: string } | null;
  thread_id: string | null;
  asked_by: string | null;
  reviewer_action: 'approve' | 'edit' | 'reject' | null;
  reviewer_id: string | null;
  reviewed_at: string | null;
  rating: 'up' | 'down' | null;
  rating_note: string | null;
  training_job_id: string | null;
  trained_at: string | null;
  idempotency_key: string | null;
  created_at: string;
  completed_at: string | null;
}

/** What a new message must say; everything else starts empty. */
export type NewMessage = Pick<
  MessageRecord,
  'message_id' | 'conversation_id' | 'question' | 'status' | 'provider' | 'created_at'
> &
  Partial<Omit<MessageRecord, 'seq'>>;

/** Fields a message may change once stored: its answer and review, its rating, its training marks. */
export type MessageChange = Partial<
  Pick<
    MessageRecord,
    | 'status'
    | 'draft'
    | 'answer'
    | 'citations'
    | 'sources'
    | 'reviewer_action'
    | 'reviewer_id'
    | 'reviewed_at'
    | 'completed_at'
    | 'rating'
    | 'rating_note'
    | 'training_job_id'
    | 'trained_at'
  >
>;

export interface ConversationsRepo {
  create(c: ConversationRecord): Promise<ConversationRecord>;
  get(conversationId: string): Promise<ConversationRecord | null>;
  /** A bot's or a job's conversations, oldest first. */
  listOf(owner: { bot_id: string } | { job_id: string }): Promise<ConversationRecord[]>;
  countOf(owner: { bot_id: string } | { job_id: string }): Promise<number>;
  /** How many messages each of these conversations holds (0 for one with none). */
  messageCounts(conversationIds: readonly string[]): Promise<Map<string, number>>;
  rename(conversationId: string, title: string | null, at: string): Promise<ConversationRecord | null>;
  /** The conversation and its messages, gone for good; false when there was none. */
  delete(conversationId: string): Promise<boolean>;

  messages(conversationId: string, order?: 'oldest' | 'newest'): Promise<MessageRecord[]>;
  message(messageId: string): Promise<MessageRecord | null>;
  messageByThread(threadId: string): Promise<MessageRecord | null>;
  messageByIdempotencyKey(conversationId: string, key: string): Promise<MessageRecord | null>;
  /** Appends a message (the next seq of its conversation) and marks the conversation updated at its created_at. */
  addMessage(m: NewMessage): Promise<MessageRecord>;
  /**
   * Changes a message; with `whileStatus`, only while it still has that status, so that two reviewers
   * resuming one held answer cannot both win. True when a message changed.
   */
  updateMessage(messageId: string, change: MessageChange, whileStatus?: MessageStatus): Promise<boolean>;
  /** Changes several messages alike; with `whileTrainingJob`, only those put in that training job and not yet trained. */
  updateMessages(messageIds: readonly string[], change: MessageChange, whileTrainingJob?: string): Promise<number>;
  /**
   * A bot's answered text messages not yet learned nor rated down (what learning from chats may offer),
   * oldest conversation first, in order within each.
   */
  learnableMessages(botId: string): Promise<MessageRecord[]>;
  /** Every message of the conversations about a job (a purge scrubs the texts quoting purged content). */
  messagesAboutJob(jobId: string): Promise<MessageRecord[]>;
}

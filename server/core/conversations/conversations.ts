/**
 * One conversation model for every chat: a job's chat sessions, a bot's chats (text and vision) and the
 * OpenAI-compatible route's answers all keep their questions and answers here. This is where chat
 * encryption applies: the words a person wrote or read (question, draft, answer, rating note) are sealed on
 * the way into the store and opened on the way out, so nothing above sees a sealed text and nothing below
 * sees a plain one while encrypt_chats is on.
 */
import type {
  ConversationRecord,
  MessageChange,
  MessageRecord,
  MessageStatus,
  NewMessage,
} from '../../store/repos/conversations-repo.js';
import type { Store } from '../../store/store.js';
import type { ChatCipher } from '../chat/chat-cipher.js';
import { isoNow, systemClock, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { MessageCitationRow } from '../../store/repos/conversations-repo.js';

export type { ConversationRecord, MessageRecord, MessageStatus, NewMessage };

/** A reviewer's decision on an answer held for approval (`require_approval`). */
export interface ResumeHeld {
  thread_id: string;
  action: 'approve' | 'edit' | 'reject';
  edited_answer?: string;
}

type Sealable = Pick<MessageRecord, 'question' | 'draft' | 'answer' | 'rating_note'>;
const SEALED_FIELDS = ['question', 'draft', 'answer', 'rating_note'] as const;

export function createConversations({
  store,
  cipher,
  clock = systemClock,
}: {
  store: Pick<Store, 'conversations'>;
  cipher: ChatCipher;
  clock?: Clock;
}) {
  const repo = store.conversations;
  function seal<T extends Partial<Sealable>>(m: T): T {
    const out = { ...m };
    for (const f of SEALED_FIELDS) if (typeof out[f] === 'string') (out[f] as string) = cipher.seal(out[f] as string);
    return out;
  }
  function open(m: MessageRecord): MessageRecord;
  function open(m: MessageRecord | null): MessageRecord | null;
  function open(m: MessageRecord | null): MessageRecord | null {
    if (!m) return m;
    const out = { ...m };
    for (const f of SEALED_FIELDS) if (typeof out[f] === 'string') (out[f] as string) = cipher.open(out[f] as string);
    return out;
  }

  return {
    create: (c: ConversationRecord) => repo.create(c),
    get: (id: string) => repo.get(id),
    listOf: (owner: { bot_id: string } | { job_id: string }) => repo.listOf(owner),
    /** A job's or a bot's conversations, oldest first, each with how many messages it holds. */
    async summaries(owner: { bot_id: string } | { job_id: string }) {
      const list = await repo.listOf(owner);
      const counts = await repo.messageCounts(list.map((c) => c.conversation_id));
      return list.map((c) => ({ ...c, message_count: counts.get(c.conversation_id) ?? 0 }));
    },
    countOf: (owner: { bot_id: string } | { job_id: string }) => repo.countOf(owner),
    /** Renames a conversation (null clears the title) and answers its summary; null when there is none. */
    async rename(id: string, title: string | null) {
      const renamed = await repo.rename(id, title, isoNow(clock));
      if (!renamed) return null;
      return { ...renamed, message_count: (await repo.messageCounts([id])).get(id) ?? 0 };
    },
    delete: (id: string) => repo.delete(id),
    messages: async (id: string, order?: 'oldest' | 'newest') => (await repo.messages(id, order)).map((m) => open(m)),
    message: async (id: string) => open(await repo.message(id)),
    messageByThread: async (threadId: string) => open(await repo.messageByThread(threadId)),
    messageByIdempotencyKey: async (id: string, key: string) => open(await repo.messageByIdempotencyKey(id, key)),
    add: async (m: NewMessage) => open(await repo.addMessage(seal(m))),
    update: (id: string, change: MessageChange, whileStatus?: MessageStatus) =>
      repo.updateMessage(id, seal(change), whileStatus),
    updateMany: (ids: readonly string[], change: MessageChange, whileTrainingJob?: string) =>
      repo.updateMessages(ids, seal(change), whileTrainingJob),
    /**
     * A reader's verdict on an answer of this conversation (up or down, with an optional note); null when
     * the conversation has no such message. A down-rated answer is never offered for learning.
     */
    async rate(conversationId: string, messageId: string, r: { rating: 'up' | 'down'; note?: string | null }) {
      const m = await repo.message(messageId);
      if (!m || m.conversation_id !== conversationId) return null;
      await repo.updateMessage(messageId, seal({ rating: r.rating, rating_note: r.note ?? null }));
      return { rating: r.rating, note: r.note ?? null };
    },
    /**
     * Finishes an answer held for approval in this conversation, once: approve (the draft), edit (the
     * reviewer's text; `recite` may find citations of its own in it, else the draft's stay) or reject. Who
     * and when are recorded. THREAD_NOT_FOUND for a thread not in the conversation; INVALID_STATE once resumed.
     */
    async resume(
      conversationId: string,
      req: ResumeHeld,
      by: string,
      at: string,
      recite?: (answer: string, held: MessageRecord) => MessageCitationRow[],
    ) {
      const held = open(await repo.messageByThread(req.thread_id));
      if (!held || held.conversation_id !== conversationId)
        throw new AppError('THREAD_NOT_FOUND', `no chat thread ${req.thread_id} in ${conversationId}`);
      if (req.action === 'edit' && !req.edited_answer?.trim())
        throw new AppError('VALIDATION_FAILED', 'action edit needs edited_answer', [{ field: 'edited_answer' }]);
      const answer = req.action === 'approve' ? held.draft : req.action === 'edit' ? req.edited_answer!.trim() : null;
      const own = req.action === 'edit' && recite ? recite(answer!, held) : [];
      const done = await repo.updateMessage(
        held.message_id,
        seal({
          status: req.action === 'reject' ? 'rejected' : 'complete',
          answer,
          citations: req.action === 'reject' ? [] : own.length ? own : held.citations,
          reviewer_action: req.action,
          reviewer_id: by,
          reviewed_at: at,
          completed_at: at,
        }),
        'pending_review',
      );
      if (!done) {
        throw new AppError(
          'INVALID_STATE',
          `thread ${req.thread_id} was already resumed (${held.reviewer_action ?? held.status} by ${held.reviewer_id ?? 'someone'})`,
          { status: held.status },
        );
      }
      return open((await repo.message(held.message_id))!);
    },
    learnable: async (botId: string) => (await repo.learnableMessages(botId)).map((m) => open(m)),
    aboutJob: async (jobId: string) => (await repo.messagesAboutJob(jobId)).map((m) => open(m)),
  };
}
export type Conversations = ReturnType<typeof createConversations>;

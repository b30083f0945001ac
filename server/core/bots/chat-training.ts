import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../store/store.js';
import { createConversations } from '../conversations/conversations.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { BotDocuments } from './bot-documents.js';
import type { BotsService } from './bots-service.js';
import type { ChatCipher } from '../chat/chat-cipher.js';
import type { BotCitationRow } from '../../store/repos/conversations-repo.js';

export interface ChatTrainingDeps {
  store: Pick<Store, 'conversations' | 'bots'>;
  bots: BotsService;
  documents: Pick<BotDocuments, 'addBytes'>;
  clock: Clock;
  dataDir: string;
  /** Opens sealed messages (encrypt_chats). What a person puts up for training becomes a document, stored plain. */
  cipher: ChatCipher;
}

const NO_NEW_CHATS = 'No new chats found for training.';
/** How each question is headed in the review document: its number ties the blocks back to the message. */
const QUESTION = /^Q(\d+)\.\s/;

const csvCell = (v: string) => `"${v.replace(/"/g, '""')}"`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Learning from chats, with a person in between (Long-Trainer fed every answer back unreviewed): readers rate
 * answers; `train` puts the bot's answered, unrated-or-liked, untrained pairs into one review job of its own;
 * only when a person finalizes it are the pairs they kept embedded into the bot (as any bot document is), and
 * once they are in its index they are marked trained, so a failure on the way loses nothing and nothing is
 * learned twice.
 */
export function createChatTraining(d: ChatTrainingDeps) {
  const conversations = createConversations({ store: d.store, cipher: d.cipher });

  async function message(chatId: string, messageId: string) {
    const chat = await conversations.get(chatId);
    if (!chat?.bot_id) throw new AppError('CHAT_NOT_FOUND', `chat ${chatId} does not exist`);
    const m = await conversations.message(messageId);
    if (!m || m.conversation_id !== chatId)
      throw new AppError('MESSAGE_NOT_FOUND', `chat ${chatId} has no message ${messageId}`);
    return m;
  }

  /** Pairs a training job holds that a failed, cancelled or deleted job gave back. */
  async function released(jobIds: string[]): Promise<Set<string>> {
    // A bot has few training jobs: one read each.
    const gone = await Promise.all(
      jobIds.map(async (id) => {
        const job = await d.store.bots.document(id);
        return !job || job.status === 'failed' || job.status === 'cancelled';
      }),
    );
    return new Set(jobIds.filter((_, i) => gone[i]));
  }

  return {
    async feedback(chatId: string, messageId: string, f: { rating: 'up' | 'down'; note?: string | null }) {
      await message(chatId, messageId);
      await conversations.rate(chatId, messageId, f);
      return { chat_id: chatId, message_id: messageId, rating: f.rating, note: f.note ?? null };
    },

    async train(botId: string) {
      await d.bots.get(botId);
      const candidates = (await conversations.learnable(botId)).filter((m) => m.answer?.trim());
      const free = await released([
        ...new Set(candidates.flatMap((m) => (m.training_job_id ? [m.training_job_id] : []))),
      ]);
      const pairs = candidates.filter((m) => !m.training_job_id || free.has(m.training_job_id));
      if (!pairs.length) return { message: NO_NEW_CHATS, csv_path: null, job_id: null, pairs: 0 };

      const stamp = isoNow(d.clock).replace(/[:.]/g, '-');
      const dir = join(d.dataDir, 'training');
      mkdirSync(dir, { recursive: true });
      const csvPath = join(dir, `${botId}-${stamp}.csv`);
      writeFileSync(
        csvPath,
        [
          'chat_id,message_id,question,answer',
          ...pairs.map((m) => [m.conversation_id, m.message_id, m.question, m.answer ?? ''].map(csvCell).join(',')),
        ].join('\n') + '\n',
      );
      const markdown =
        [
          '# Learned from chats',
          ...pairs.map((m, i) => `## Q${i + 1}. ${oneLine(m.question)}\n\n${(m.answer ?? '').trim()}`),
        ].join('\n\n') + '\n';
      const added = await d.documents.addBytes(
        botId,
        new TextEncoder().encode(markdown),
        `learned-from-chats-${stamp}.md`,
        {
          kind: 'chat_training',
          review: true,
          title: 'Learned from chats',
          pairs: pairs.map((m) => ({
            chat_id: m.conversation_id,
            message_id: m.message_id,
            citations: m.citations as BotCitationRow[],
          })),
        },
      );
      if (!added.job_id)
        throw new AppError(
          'VALIDATION_FAILED',
          `the training document could not be added: ${added.error?.message ?? added.status}`,
        );
      await conversations.updateMany(
        pairs.map((m) => m.message_id),
        { training_job_id: added.job_id },
      );
      return {
        message: `${pairs.length} question-answer pair(s) are waiting for review in job ${added.job_id}.`,
        csv_path: csvPath,
        job_id: added.job_id,
        pairs: pairs.length,
      };
    },

    /**
     * Once a finalized training job is in its bot's index: the pairs some of whose answer the person kept are
     * marked trained, since that answer is now embedded into the bot (with its question unless they rejected
     * the heading). Not before: a job whose embedding failed and that is then deleted gives its pairs back.
     * Pairs whose whole answer they rejected stay untrained and are not offered again unless the job goes.
     * Marking again (a later notice, a restart) keeps the first time.
     */
    async learned(jobId: string): Promise<number> {
      const job = await d.store.bots.document(jobId);
      if (job?.source?.kind !== 'chat_training' || !job.source.pairs) return 0;
      const kept = new Set<number>();
      let current = 0;
      for (const b of await d.store.bots.documentBlocks(jobId)) {
        const q = b.type === 'heading' ? QUESTION.exec(b.text) : null;
        if (q) current = Number(q[1]);
        else if (current && (b.status === 'approved' || b.status === 'edited')) kept.add(current);
      }
      const ids = [...kept].flatMap((n) => (job.source!.pairs![n - 1] ? [job.source!.pairs![n - 1]!.message_id] : []));
      if (ids.length) await conversations.updateMany(ids, { trained_at: isoNow(d.clock) }, jobId);
      return ids.length;
    },
  };
}
export type ChatTraining = ReturnType<typeof createChatTraining>;

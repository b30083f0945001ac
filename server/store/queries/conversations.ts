/** The conversations repository's conditions, the same on both backends. */
import { and, eq, inArray, isNull, or, type SQL } from 'drizzle-orm';
import type { EitherTable } from './tables.js';

type Conversations = EitherTable<'conversations'>;
type Messages = EitherTable<'messages'>;

/** A bot's or a job's conversations. */
export const ownerWhere = (c: Conversations, owner: { bot_id: string } | { job_id: string }): SQL =>
  'bot_id' in owner ? eq(c.botId, owner.bot_id) : eq(c.jobId, owner.job_id);

/** The messages named; with `whileTrainingJob`, only those put in that training job and not yet trained. */
export function messagesWhere(m: Messages, ids: readonly string[], whileTrainingJob?: string): SQL | undefined {
  const byId = inArray(m.messageId, [...ids]);
  return whileTrainingJob ? and(byId, eq(m.trainingJobId, whileTrainingJob), isNull(m.trainedAt)) : byId;
}

/** A bot's answered text messages not yet learned nor rated down, over messages joined to their conversations. */
export const learnableWhere = (c: Conversations, m: Messages, botId: string): SQL | undefined =>
  and(
    eq(c.botId, botId),
    eq(m.status, 'complete'),
    eq(m.notFound, false),
    eq(m.answerFormat, 'text'),
    isNull(m.trainedAt),
    or(isNull(m.rating), eq(m.rating, 'up')),
  );

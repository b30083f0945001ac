import type { Store } from '../../store/store.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { KeyScope } from './roles.js';

/** Request fields, wherever they are (path, query, body), that name something a scope limits. */
export const SCOPED_FIELDS = [
  'job_id',
  'bot_id',
  'chat_id',
  'session_id',
  'conversation_id',
  'collection_name',
] as const;
export type ScopedField = (typeof SCOPED_FIELDS)[number];

/**
 * What a scoped key may see, decided from the ids a request names. A key scoped to bots sees those bots,
 * their documents (jobs with their bot_id) and their chats; a key scoped to jobs sees those jobs and their
 * chat sessions. Anything else answers the same 404 as a thing that does not exist, so a scoped key
 * cannot even learn which ids exist.
 */
export function createScopeCheck({ lookups }: Pick<Store, 'lookups'>) {
  /** A job is visible when the scope names it or the bot it belongs to. */
  const jobInScope = (scope: KeyScope, jobId: string, botId: string | null | undefined): boolean =>
    scope.jobs.includes(jobId) || (botId != null && scope.bots.includes(botId));

  async function jobVisible(scope: KeyScope, jobId: string): Promise<boolean> {
    if (scope.jobs.includes(jobId)) return true;
    if (scope.bots.length === 0) return false;
    return jobInScope(scope, jobId, await lookups.botOfJob(jobId));
  }

  const botVisible = async (scope: KeyScope, botId: string): Promise<boolean> => scope.bots.includes(botId);

  async function chatVisible(scope: KeyScope, chatId: string): Promise<boolean> {
    const botId = await lookups.botOfChat(chatId);
    return botId !== undefined && scope.bots.includes(botId);
  }

  async function sessionVisible(scope: KeyScope, sessionId: string): Promise<boolean> {
    const jobId = await lookups.jobOfChatSession(sessionId);
    return jobId !== undefined && jobVisible(scope, jobId);
  }

  /** A conversation is a bot's chat or a job's session: visible as that chat or session is. */
  async function conversationVisible(scope: KeyScope, id: string): Promise<boolean> {
    return (await chatVisible(scope, id)) || (await sessionVisible(scope, id));
  }

  /**
   * A collection is searched whole, so it is visible only when every job embedded in it is (a bot's
   * collection holds only its documents). One that holds no job yet is left to the route's own answer.
   */
  async function collectionVisible(scope: KeyScope, name: string): Promise<boolean> {
    return (await lookups.collectionMembers(name)).every((m) => jobInScope(scope, m.jobId, m.botId));
  }

  /** The answer for what is not visible, by request field (path parameter, query or body). */
  const FIELDS: Record<
    ScopedField,
    { visible: (scope: KeyScope, id: string) => Promise<boolean>; code: ErrorCode; message: (id: string) => string }
  > = {
    job_id: { visible: jobVisible, code: 'JOB_NOT_FOUND', message: (id) => `job ${id} does not exist` },
    bot_id: { visible: botVisible, code: 'BOT_NOT_FOUND', message: (id) => `bot ${id} does not exist` },
    chat_id: { visible: chatVisible, code: 'CHAT_NOT_FOUND', message: (id) => `chat ${id} does not exist` },
    session_id: {
      visible: sessionVisible,
      code: 'SESSION_NOT_FOUND',
      message: (id) => `chat session ${id} does not exist`,
    },
    conversation_id: {
      visible: conversationVisible,
      code: 'CONVERSATION_NOT_FOUND',
      message: (id) => `conversation ${id} does not exist`,
    },
    collection_name: {
      visible: collectionVisible,
      code: 'COLLECTION_NOT_FOUND',
      message: (id) => `collection ${id} does not exist; embed a job into it first`,
    },
  };

  return {
    /** Throws the not-found error of the first id in `fields` (path parameters, query or body) the scope does not cover. */
    async check(scope: KeyScope, fields: unknown): Promise<void> {
      if (typeof fields !== 'object' || fields === null) return;
      for (const name of SCOPED_FIELDS) {
        const rule = FIELDS[name];
        const id = (fields as Record<string, unknown>)[name];
        if (typeof id === 'string' && !(await rule.visible(scope, id))) throw new AppError(rule.code, rule.message(id));
      }
    },
  };
}

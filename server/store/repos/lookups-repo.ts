/**
 * Small questions about what exists and what belongs to what, asked by checks that span aggregates (a
 * key's scope, for one). Each is one indexed read.
 */
export interface LookupsRepo {
  /** Which of these bot ids exist. */
  existingBots(ids: readonly string[]): Promise<Set<string>>;
  /** Which of these job ids exist. */
  existingJobs(ids: readonly string[]): Promise<Set<string>>;
  /** The bot a job belongs to: null for a job of no bot, undefined for no such job. */
  botOfJob(jobId: string): Promise<string | null | undefined>;
  /** The bot of a bot's conversation (chat), or undefined. */
  botOfChat(chatId: string): Promise<string | undefined>;
  /** The job of a job's conversation (chat session), or undefined. */
  jobOfChatSession(sessionId: string): Promise<string | undefined>;
  /** The jobs embedded in a collection, each with its bot. */
  collectionMembers(name: string): Promise<{ jobId: string; botId: string | null }[]>;
}

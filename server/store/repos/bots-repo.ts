import type { Static } from 'typebox';
import type { JobSource } from '../../../drizzle/schema.js';
import type { Bot } from '../../schemas/bots.js';
import type { Paging } from '../paginate.js';

export type { JobSource };

/** A bot as stored: the API's bot without what is derived (its collection's name, its counts). */
export type BotRecord = Omit<Static<typeof Bot>, 'collection_name' | 'documents' | 'chats'>;

/** How many documents (jobs) and chats (conversations) a bot has. */
export interface BotCounts {
  documents: number;
  chats: number;
}

export interface BotsPage {
  items: (BotRecord & BotCounts)[];
  total: number;
  skip: number;
  limit: number;
}

/** One of a bot's documents: its job, as far as the bots code needs it. */
export interface BotDocumentRecord {
  job_id: string;
  bot_id: string;
  source_file: string;
  status: string;
  source: JobSource | null;
  /** Set when the job failed, or when its embedding into the bot's index failed after it was finalized. */
  error_code: string | null;
  created_at: string;
}

/** A block of a document as the chat-training check reads it: which parts of the review a person kept. */
export interface DocumentBlock {
  type: string;
  text: string;
  status: string;
}

export interface BotsRepo {
  insert(bot: BotRecord): Promise<BotRecord>;
  get(botId: string): Promise<BotRecord | null>;
  /** Bots newest first, each with its counts; `only`: just these bots (a key's scope). */
  list(paging: Paging, only: readonly string[] | null): Promise<BotsPage>;
  counts(botId: string): Promise<BotCounts>;
  /** Replaces the bot's instructions; null when there is no such bot. */
  setPrompt(botId: string, prompt: string, at: string): Promise<BotRecord | null>;
  /** The bot with its conversations and their messages; its documents (jobs) are the caller's to delete first. False when there was none. */
  delete(botId: string): Promise<boolean>;

  /** The bot's documents, newest first. */
  documents(botId: string): Promise<BotDocumentRecord[]>;
  /** A job that is some bot's document; null for a job of no bot or no such job. */
  document(jobId: string): Promise<BotDocumentRecord | null>;
  /** Every document of every bot (at start-up, documents left half-way are carried on). */
  allDocumentIds(): Promise<string[]>;
  /** The bot's document with this content (sha256) that is not failed or cancelled, if any. */
  liveDocumentWithHash(botId: string, sha256: string): Promise<string | null>;
  /** Records why a finalized document could not reach its bot's index; only while it is still finalized. True when recorded. */
  recordIndexFailure(jobId: string, failure: { code: string; message: string }): Promise<boolean>;
  /** A document's blocks in reading order. */
  documentBlocks(jobId: string): Promise<DocumentBlock[]>;
}

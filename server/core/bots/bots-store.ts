import { randomUUID } from 'node:crypto';
import { count, desc, eq, inArray } from 'drizzle-orm';
import { conversations, bots, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { paginate, type Paging } from '../../store/paginate.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { LlmProviderName } from '../chat/chat-providers.js';
import { DEFAULT_MIN_SIMILARITY } from '../chat/retrieve.js';

export type BotRow = typeof bots.$inferSelect;

/** Long-Trainer's default prompt: a bot created without one still answers helpfully. */
export const DEFAULT_PROMPT = 'You are an intelligent assistant. Answer the question from the documents given to you.';
export const DEFAULT_BOT_TOP_K = 5;

export interface NewBot {
  name?: string;
  prompt_template?: string;
  llm?: { provider?: LlmProviderName; model?: string; base_url?: string };
  embedding_model?: string;
  top_k?: number;
  min_similarity?: number;
}

/** The one vector collection that holds a bot's knowledge. */
export const botCollection = (botId: string): string => `bot-${botId}`;

export function botView(b: BotRow) {
  return {
    bot_id: b.botId,
    name: b.name,
    prompt_template: b.promptTemplate,
    llm: b.llm,
    embedding_model: b.embeddingModel,
    top_k: b.topK,
    min_similarity: b.minSimilarity,
    collection_name: botCollection(b.botId),
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

/** What answers for a bot created without `llm` (settings llm_provider, llm_model, llm_base_url). */
export interface DefaultLlm {
  provider: LlmProviderName;
  model?: string;
  base_url?: string;
}

/** Bots in SQLite. Nothing about a bot lives in memory: every request reads the row it needs. */
export function createBotsStore({ db, clock, defaultEmbeddingModel, defaultLlm = { provider: 'local' } }: { db: Db; clock: Clock; defaultEmbeddingModel: string; defaultLlm?: DefaultLlm }) {
  const get = (botId: string): BotRow => {
    const row = db.select().from(bots).where(eq(bots.botId, botId)).get();
    if (!row) throw new AppError('BOT_NOT_FOUND', `bot ${botId} does not exist`);
    return row;
  };
  const counts = (botId: string) => ({
    documents: db.select({ n: count() }).from(jobs).where(eq(jobs.botId, botId)).get()?.n ?? 0,
    chats: db.select({ n: count() }).from(conversations).where(eq(conversations.botId, botId)).get()?.n ?? 0,
  });
  return {
    get,
    create(b: NewBot): BotRow {
      const now = isoNow(clock);
      // A bot that names no provider takes the configured one with its model and server.
      const chosen = b.llm?.provider ? b.llm : { ...defaultLlm, ...b.llm };
      const llm = { provider: chosen.provider ?? 'local', ...(chosen.model ? { model: chosen.model } : {}), ...(chosen.base_url ? { base_url: chosen.base_url } : {}) };
      return db
        .insert(bots)
        .values({
          botId: randomUUID(),
          name: b.name ?? null,
          promptTemplate: b.prompt_template?.trim() || DEFAULT_PROMPT,
          llm,
          embeddingModel: b.embedding_model ?? defaultEmbeddingModel,
          topK: b.top_k ?? DEFAULT_BOT_TOP_K,
          minSimilarity: b.min_similarity ?? DEFAULT_MIN_SIMILARITY,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
    },
    /** Bots, newest first; `only`: a key's scope (its bots). */
    list(q: Paging, only: { bots: string[] } | null = null) {
      return paginate(db, bots, only ? inArray(bots.botId, only.bots) : undefined, [desc(bots.createdAt), desc(bots.botId)], q, (b) => ({ ...botView(b), ...counts(b.botId) }));
    },
    counts,
    setPrompt(botId: string, prompt: string): BotRow {
      get(botId);
      return db.update(bots).set({ promptTemplate: prompt, updatedAt: isoNow(clock) }).where(eq(bots.botId, botId)).returning().get()!;
    },
    delete(botId: string): void {
      db.delete(bots).where(eq(bots.botId, botId)).run();
    },
    /** The bot's documents (its jobs), newest first. */
    documents(botId: string) {
      return db.select().from(jobs).where(eq(jobs.botId, botId)).orderBy(desc(jobs.createdAt)).all();
    },
  };
}
export type BotsStore = ReturnType<typeof createBotsStore>;

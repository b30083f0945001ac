import { randomUUID } from 'node:crypto';
import type { Paging } from '../../store/paginate.js';
import type { BotRecord } from '../../store/repos/bots-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { LlmProviderName } from '../chat/chat-providers.js';
import { DEFAULT_MIN_SIMILARITY } from '../chat/retrieve.js';

export type { BotRecord };

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

/** A bot as the API shows it: what is stored and the name of its collection. */
export const botView = <B extends BotRecord>(b: B) => ({ ...b, collection_name: botCollection(b.bot_id) });

/** What answers for a bot created without `llm` (settings llm_provider, llm_model, llm_base_url). */
export interface DefaultLlm {
  provider: LlmProviderName;
  model?: string;
  base_url?: string;
}

/** Bots, kept in the store. Nothing about a bot lives in memory: every request reads what it needs. */
export function createBotsService({
  store,
  clock,
  defaultEmbeddingModel,
  defaultLlm = { provider: 'local' },
}: {
  store: Store;
  clock: Clock;
  defaultEmbeddingModel: string;
  defaultLlm?: DefaultLlm;
}) {
  /** The bot with its collection's model, when it has one: a reindex may have moved it off the bot's first. */
  const withModel = <B extends BotRecord>(bot: B, model: string | null | undefined): B =>
    model && model !== bot.embedding_model ? { ...bot, embedding_model: model } : bot;
  async function get(botId: string): Promise<BotRecord> {
    const bot = await store.bots.get(botId);
    if (!bot) throw new AppError('BOT_NOT_FOUND', `bot ${botId} does not exist`);
    return bot;
  }
  return {
    get,
    /**
     * The bot as GET /bots/{id} shows it: a reindex of its collection moves it to another model, which is the
     * one its documents embed with (read here, not in `get`, which every chat of the bot calls).
     */
    async shown(botId: string): Promise<BotRecord> {
      const bot = await get(botId);
      return withModel(bot, (await store.collections.find(botCollection(botId)))?.model);
    },
    create(b: NewBot): Promise<BotRecord> {
      const now = isoNow(clock);
      // A bot that names no provider takes the configured one with its model and server.
      const chosen = b.llm?.provider ? b.llm : { ...defaultLlm, ...b.llm };
      const llm = {
        provider: chosen.provider ?? 'local',
        ...(chosen.model ? { model: chosen.model } : {}),
        ...(chosen.base_url ? { base_url: chosen.base_url } : {}),
      };
      return store.bots.insert({
        bot_id: randomUUID(),
        name: b.name ?? null,
        prompt_template: b.prompt_template?.trim() || DEFAULT_PROMPT,
        llm,
        embedding_model: b.embedding_model ?? defaultEmbeddingModel,
        top_k: b.top_k ?? DEFAULT_BOT_TOP_K,
        min_similarity: b.min_similarity ?? DEFAULT_MIN_SIMILARITY,
        created_at: now,
        updated_at: now,
      });
    },
    /** Bots, newest first, with their counts; `only`: a key's scope (its bots). */
    async list(q: Paging, only: { bots: string[] } | null = null) {
      const page = await store.bots.list(q, only ? only.bots : null);
      // Each as shown() shows it, from one read of the page's collections.
      const names = page.items.map((b) => botCollection(b.bot_id));
      const models = new Map((await store.collections.list(names)).map((c) => [c.name, c.model]));
      return { ...page, items: page.items.map((b) => botView(withModel(b, models.get(botCollection(b.bot_id))))) };
    },
    counts: (botId: string) => store.bots.counts(botId),
    async setPrompt(botId: string, prompt: string): Promise<BotRecord> {
      const bot = await store.bots.setPrompt(botId, prompt, isoNow(clock));
      if (!bot) throw new AppError('BOT_NOT_FOUND', `bot ${botId} does not exist`);
      return bot;
    },
    /** The bot with its chats; its documents go first (deleteBot). */
    async delete(botId: string): Promise<void> {
      await store.bots.delete(botId);
    },
    /** The bot's documents (its jobs), newest first. */
    documents: (botId: string) => store.bots.documents(botId),
  };
}
export type BotsService = ReturnType<typeof createBotsService>;

import { randomUUID } from 'node:crypto';
import type { BotCitationRow } from '../../store/repos/conversations-repo.js';
import type { Store } from '../../store/store.js';
import {
  createConversations,
  type ConversationRecord,
  type MessageRecord,
  type NewMessage,
  type ResumeHeld,
} from '../conversations/conversations.js';
import {
  resolveChatGenerator,
  type ChatGenerator,
  type ChatProviderDeps,
  type LlmProviderName,
} from '../chat/chat-providers.js';
import { attributeByOverlap, checkCitations, type Citation } from '../chat/citations.js';
import { buildMessages, type PriorTurn } from '../chat/prompt.js';
import { draftAnswer } from '../chat/draft-answer.js';
import { retrieveSources, type RetrievedSource } from '../chat/retrieve.js';
import { contentWords } from '../chat/words.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Search, SearchMode } from '../search/search.js';
import { webSearch, type WebResult } from '../sources/web-search.js';
import { botCollection, type BotRecord, type BotsService } from './bots-service.js';
import { answerWithSchema, type AnswerSchema } from './schema-answer.js';
import { readImage, type VisionImage } from './vision-images.js';
import type { ChatCipher } from '../chat/chat-cipher.js';
import type { TaskPool } from '../pool.js';

export interface BotChatDeps extends ChatProviderDeps {
  store: Pick<Store, 'conversations' | 'collections' | 'jobs'>;
  /** Vision questions' images are read (OCR) in the pool. */
  pool: Pick<TaskPool, 'extract'>;
  tmpDir: string;
  bots: BotsService;
  search: Search;
  clock: Clock;
  webSearchUrl: string;
  /** Seals questions and answers before they are stored (setting encrypt_chats). */
  cipher: ChatCipher;
}

export interface BotAsk {
  query: string;
  web_search?: boolean;
  /** A compiled schema: the answer is a JSON value valid against it. */
  schema?: AnswerSchema;
  /** A vision question's images, checked. */
  images?: VisionImage[];
  /** Hold the answer as pending_review under a thread_id until a reviewer resumes it (POST /chats/{chat_id}/resume). */
  require_approval?: boolean;
}

export interface BotAskEvents {
  signal?: AbortSignal;
  onSources?: (e: { chat_id: string | null; message_id: string; sources: ReturnType<typeof sourceOut>[] }) => void;
  onToken?: (text: string) => void;
}

export const BOT_NOT_FOUND_ANSWER = "I could not find the answer to this question in this bot's documents.";
const MAX_TOKENS = 256;
// JSON spends tokens on keys and punctuation: a schema answer gets more room.
const SCHEMA_MAX_TOKENS = 512;
type MessageBase = Pick<
  NewMessage,
  'message_id' | 'question' | 'provider' | 'model' | 'web_sources' | 'created_at' | 'images'
>;

/** Everything known before the first token. */
export interface PreparedBotAnswer {
  bot: BotRecord;
  /** Where the message is kept; null for a caller that holds the history itself (the OpenAI-compatible route). */
  chat: ConversationRecord | null;
  generator: ChatGenerator | 'extractive';
  prior: PriorTurn[];
  question: string;
  webSearch: boolean;
  schema?: AnswerSchema;
  images?: VisionImage[];
  requireApproval: boolean;
}

/** Where a chunk came from, as a person names it: the link, the article's title, or the file. */
async function sourceNames(store: Pick<Store, 'jobs'>, jobIds: string[]): Promise<Map<string, string>> {
  const records = await Promise.all([...new Set(jobIds)].map((id) => store.jobs.get(id)));
  // An article or the chats a bot learned from go by their title; a link by its URL; a file by its name.
  return new Map(
    records
      .filter((r) => r !== null)
      .map((r) => [
        r.job_id,
        r.source?.kind === 'encyclopedia' || r.source?.kind === 'chat_training'
          ? (r.source.title ?? r.source_file)
          : (r.source?.url ?? r.source_file),
      ]),
  );
}

/** The sentence of a source that shares the most words with the answer: what the citation quotes. */
function quoteFor(answer: string, text: string): string {
  const words = new Set(contentWords(answer));
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
  let best = sentences[0] ?? text;
  let bestScore = -1;
  for (const s of sentences) {
    const score = contentWords(s).filter((w) => words.has(w)).length;
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  return best.length > 400 ? `${best.slice(0, 400)}…` : best;
}

const sourceOut = (s: RetrievedSource) => ({
  label: s.label,
  chunk_id: s.chunk_id,
  job_id: s.job_id,
  page_numbers: s.page_numbers,
  score: s.score,
  text: s.text,
});

function messageView(m: MessageRecord) {
  // While held, the reviewer sees the draft; a rejected answer shows nothing.
  const answer = m.status === 'pending_review' ? m.draft : (m.answer ?? '');
  return {
    message_id: m.message_id,
    question: m.question,
    answer: m.answer_format === 'json' ? (JSON.parse(answer) as unknown) : answer,
    citations: m.citations as BotCitationRow[],
    web_sources: m.web_sources,
    not_found: m.not_found,
    status: m.status,
    error: m.error,
    usage: m.usage,
    rating: m.rating,
    rating_note: m.rating_note,
    thread_id: m.thread_id,
    review: m.reviewer_action
      ? { action: m.reviewer_action, reviewer_id: m.reviewer_id ?? '', at: m.reviewed_at ?? '' }
      : null,
    // Long-Trainer's vision records answer in `response`; both names are given for them.
    ...(m.images.length ? { response: answer, images: m.images } : {}),
    created_at: m.created_at,
  };
}

/**
 * A bot's chats: the jobs chat's retrieval, providers, citation checks and prompt, over the bot's
 * collection, with the bot's instructions and answer settings. Messages are stored per chat in order.
 */
export function createBotChat(d: BotChatDeps) {
  const now = () => isoNow(d.clock);
  const conversations = createConversations({ store: d.store, cipher: d.cipher });

  async function chatOf(botId: string, chatId: string, kind: 'text' | 'vision'): Promise<ConversationRecord> {
    await d.bots.get(botId);
    const chat = await conversations.get(chatId);
    // Another bot's chat (or a chat of the other kind) is as unknown here as one that does not exist.
    if (!chat || chat.bot_id !== botId || chat.kind !== kind)
      throw new AppError('CHAT_NOT_FOUND', `bot ${botId} has no ${kind === 'vision' ? 'vision ' : ''}chat ${chatId}`);
    return chat;
  }

  async function generatorOf(bot: BotRecord): Promise<ChatGenerator | 'extractive'> {
    if (bot.llm.provider === 'extractive') return 'extractive';
    return resolveChatGenerator(
      {
        provider: bot.llm.provider as Exclude<LlmProviderName, 'extractive'>,
        model: bot.llm.model,
        base_url: bot.llm.base_url,
      },
      d,
    );
  }

  /** The bot's chunks for a question; a bot with nothing indexed yet has none. */
  async function retrieve(bot: BotRecord, question: string, previousQuestion: string | undefined) {
    try {
      return await retrieveSources(
        { store: d.store, search: d.search },
        {
          scope: { collection: botCollection(bot.bot_id) },
          question,
          previousQuestion,
          topK: bot.top_k,
          minSimilarity: bot.min_similarity,
        },
      );
    } catch (err) {
      if ((err as { code?: string }).code === 'COLLECTION_NOT_FOUND') return [];
      throw err;
    }
  }

  async function citationsOf(
    answer: string,
    citations: Citation[],
    sources: RetrievedSource[],
  ): Promise<BotCitationRow[]> {
    const chunkSources = sources.filter((s) => s.job_id);
    const names = await sourceNames(
      d.store,
      chunkSources.map((s) => s.job_id),
    );
    return citations.flatMap((c) => {
      const s = sources.find((x) => x.label === c.label);
      if (!s || s.label.startsWith('W')) return [];
      // An attached image is cited as "image N" (its label I<N>); it belongs to no job.
      const source = s.label.startsWith('I') ? `image ${s.label.slice(1)}` : (names.get(s.job_id) ?? s.job_id);
      return [
        {
          chunk_id: s.chunk_id,
          job_id: s.job_id,
          source,
          page_numbers: s.page_numbers,
          quote: quoteFor(answer, s.text),
        },
      ];
    });
  }

  async function store(
    chat: PreparedBotAnswer['chat'],
    m: Omit<NewMessage, 'conversation_id'>,
  ): Promise<MessageRecord> {
    const message = { answer: '', ...m, conversation_id: chat?.conversation_id ?? '' };
    if (chat) return conversations.add(message);
    // Not kept: the record the view is made from, as it would have been stored.
    return {
      seq: 0,
      draft: '',
      answer_format: 'text',
      not_found: false,
      sources: [],
      citations: [],
      cited_by: null,
      web_sources: [],
      images: [],
      model: null,
      usage: {},
      error: null,
      thread_id: null,
      asked_by: null,
      reviewer_action: null,
      reviewer_id: null,
      reviewed_at: null,
      rating: null,
      rating_note: null,
      training_job_id: null,
      trained_at: null,
      idempotency_key: null,
      completed_at: null,
      ...message,
    };
  }

  /**
   * A schema answer: the same sources and instructions, the model bound to the schema (grammar or
   * response format) and the result validated; nothing relevant retrieved means no model is asked and
   * the message is `not_found` with a null answer.
   */
  async function schemaMessage(
    p: PreparedBotAnswer,
    generator: ChatGenerator,
    schema: AnswerSchema,
    sources: RetrievedSource[],
    base: MessageBase,
    ev: BotAskEvents,
  ): Promise<MessageRecord> {
    if (sources.length === 0)
      return store(p.chat, { ...base, status: 'complete', answer: 'null', answer_format: 'json', not_found: true });
    const messages = buildMessages(p.question, sources, p.prior, p.bot.prompt_template, generator.sourceText);
    const started = performance.now();
    const r = await answerWithSchema(generator, messages, schema, {
      maxTokens: SCHEMA_MAX_TOKENS,
      temperature: 0,
      signal: ev.signal,
    });
    const checked = checkCitations(r.raw, sources).citations;
    const cited = checked.length ? checked : attributeByOverlap(r.raw, sources);
    return store(p.chat, {
      ...base,
      status: 'complete',
      answer: JSON.stringify(r.value),
      answer_format: 'json',
      citations: await citationsOf(r.raw, cited, sources),
      usage: {
        attempts: r.attempts,
        prompt_tokens: r.promptTokens,
        completion_tokens: r.completionTokens,
        load_ms: r.loadMs,
        first_token_ms: r.firstTokenMs,
        decode_ms: r.decodeMs,
        generation_ms: performance.now() - started,
      },
    });
  }

  async function prepareWith(
    bot: BotRecord,
    chat: PreparedBotAnswer['chat'],
    prior: PriorTurn[],
    req: BotAsk,
  ): Promise<PreparedBotAnswer> {
    if (req.web_search && !d.webSearchUrl) {
      throw new AppError(
        'WEB_SEARCH_UNAVAILABLE',
        'web search is not configured: set web_search_url (env LECTERN_WEB_SEARCH_URL) to a SearxNG-compatible JSON search API',
      );
    }
    const generator = await generatorOf(bot);
    if (req.require_approval && (req.schema || !chat)) {
      throw new AppError(
        'VALIDATION_FAILED',
        'require_approval holds a text answer of a bot chat: not a schema answer, nor one whose history the caller keeps',
        [{ field: 'require_approval' }],
      );
    }
    if (req.schema && generator === 'extractive') {
      throw new AppError(
        'VALIDATION_FAILED',
        'a schema answer needs a model: this bot answers with the extractive provider, which only quotes',
        [{ field: 'schema' }],
      );
    }
    return {
      bot,
      chat,
      generator,
      prior,
      question: req.query,
      webSearch: req.web_search ?? false,
      schema: req.schema,
      images: req.images,
      requireApproval: req.require_approval ?? false,
    };
  }

  return {
    async createChat(botId: string, kind: 'text' | 'vision' = 'text') {
      await d.bots.get(botId);
      const at = now();
      const chat = await conversations.create({
        conversation_id: randomUUID(),
        scope: 'bot',
        job_id: null,
        bot_id: botId,
        collection: null,
        kind,
        title: null,
        created_by: null,
        created_at: at,
        updated_at: at,
      });
      return { chat_id: chat.conversation_id };
    },

    async listChats(botId: string): Promise<string[]> {
      await d.bots.get(botId);
      return (await conversations.listOf({ bot_id: botId })).map((c) => c.conversation_id);
    },

    async getChat(chatId: string, order: 'newest' | 'oldest' = 'oldest') {
      const chat = await conversations.get(chatId);
      if (!chat?.bot_id) throw new AppError('CHAT_NOT_FOUND', `chat ${chatId} does not exist`);
      return {
        chat_id: chatId,
        bot_id: chat.bot_id,
        messages: (await conversations.messages(chatId, order)).map(messageView),
      };
    },

    /** Everything checked before a stream opens: bot, chat, provider (a missing model is a 503 here). */
    async prepare(botId: string, chatId: string, req: BotAsk): Promise<PreparedBotAnswer> {
      const chat = await chatOf(botId, chatId, req.images ? 'vision' : 'text');
      const prior = (await conversations.messages(chat.conversation_id))
        .filter((m) => m.status === 'complete' && !m.not_found && m.answer_format === 'text')
        .map((m) => ({ question: m.question, answer: m.answer ?? '' }));
      return prepareWith(await d.bots.get(botId), chat, prior, req);
    },

    /** A question whose history the caller holds (the OpenAI-compatible route): nothing is stored. */
    async prepareStateless(botId: string, prior: PriorTurn[], req: BotAsk): Promise<PreparedBotAnswer> {
      return prepareWith(await d.bots.get(botId), null, prior, req);
    },

    async answer(p: PreparedBotAnswer, ev: BotAskEvents = {}) {
      const messageId = randomUUID();
      const sources = await retrieve(p.bot, p.question, p.prior.at(-1)?.question);
      let web: WebResult[] = [];
      if (p.webSearch) web = await webSearch(d.net, d.webSearchUrl, p.question, { limit: 5, signal: ev.signal });
      // Web results ground the answer as extra sources (W1…) and are listed apart; citations name chunks only.
      // A vision question's images are read in the pool and given as sources I1…, cited as "image N".
      const imageTexts = await Promise.all((p.images ?? []).map((img) => readImage(d.pool, d.tmpDir, img, ev.signal)));
      const all: RetrievedSource[] = [
        ...sources,
        ...imageTexts.map((text, i) => ({
          label: `I${i + 1}`,
          chunk_id: `image-${i + 1}`,
          job_id: '',
          page_numbers: [],
          section_path: [],
          text: text || '(no text could be read from this image)',
          score: 0,
        })),
        ...web.map((w, i) => ({
          label: `W${i + 1}`,
          chunk_id: w.url,
          job_id: '',
          page_numbers: [],
          section_path: [],
          text: `${w.title}: ${w.snippet}`,
          score: 0,
        })),
      ];
      ev.onSources?.({ chat_id: p.chat?.conversation_id ?? null, message_id: messageId, sources: all.map(sourceOut) });
      const images = (p.images ?? []).map((img, i) => ({
        name: img.name,
        media_type: img.media_type,
        sha256: img.sha256,
        bytes: img.bytes.length,
        text_chars: imageTexts[i]!.length,
      }));
      const base: MessageBase = {
        images,
        message_id: messageId,
        question: p.question,
        provider: p.generator === 'extractive' ? 'extractive' : p.generator.provider,
        model: p.generator === 'extractive' ? null : p.generator.model,
        web_sources: web,
        created_at: now(),
      };
      try {
        if (p.schema && p.generator !== 'extractive')
          return messageView(await schemaMessage(p, p.generator, p.schema, all, base, ev));
        const dr = await draftAnswer(
          {
            generator: p.generator,
            question: p.question,
            sources: all,
            maxTokens: MAX_TOKENS,
            temperature: 0,
            system: p.bot.prompt_template,
            prior: p.prior,
            notFoundAnswer: BOT_NOT_FOUND_ANSWER,
            images: p.images?.map((img) => ({
              media_type: img.media_type,
              base64: Buffer.from(img.bytes).toString('base64'),
            })),
          },
          ev,
        );
        const status = dr.aborted ? 'cancelled' : p.requireApproval ? 'pending_review' : 'complete';
        const row = await store(p.chat, {
          ...base,
          status,
          draft: dr.text,
          answer: status === 'pending_review' ? null : dr.text,
          not_found: dr.notFound,
          citations: await citationsOf(dr.text, dr.citations, all),
          usage: dr.usage,
          thread_id: status === 'pending_review' ? randomUUID() : null,
        });
        return messageView(row);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        await store(p.chat, {
          ...base,
          status: ev.signal?.aborted ? 'cancelled' : 'failed',
          error: { code: e.code ?? 'INTERNAL', message: e.message ?? String(err) },
        });
        throw err;
      }
    },

    /** A reviewer's approve, edit or reject of an answer held for approval in this chat (once). */
    async resume(chatId: string, req: ResumeHeld, by: string) {
      const chat = await conversations.get(chatId);
      if (!chat?.bot_id) throw new AppError('CHAT_NOT_FOUND', `chat ${chatId} does not exist`);
      return messageView(await conversations.resume(chatId, req, by, now()));
    },

    /** The bot's index searched directly, no model: Long-Trainer's vectorstore route. */
    async vectorstore(botId: string, req: { query: string; top_k?: number; mode?: SearchMode }) {
      await d.bots.get(botId);
      let results: Awaited<ReturnType<Search>>['results'] = [];
      try {
        results = (
          await d.search({
            collection_name: botCollection(botId),
            query: req.query,
            top_k: req.top_k ?? 5,
            mode: req.mode ?? 'hybrid',
          })
        ).results;
      } catch (err) {
        if ((err as { code?: string }).code !== 'COLLECTION_NOT_FOUND') throw err;
      }
      const names = await sourceNames(
        d.store,
        results.map((r) => r.job_id),
      );
      return {
        documents: results.map((r) => ({
          content: r.text,
          metadata: {
            chunk_id: r.chunk_id,
            job_id: r.job_id,
            source: names.get(r.job_id) ?? r.job_id,
            page_numbers: r.page_numbers,
            section_path: r.section_path,
            score: r.score,
          },
        })),
      };
    },
  };
}
export type BotChat = ReturnType<typeof createBotChat>;

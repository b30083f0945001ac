import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import type { Search } from '../search/search.js';
import { checkCitations } from './citations.js';
import {
  resolveChatGenerator,
  type ChatGenerator,
  type ChatProviderDeps,
  type LlmProviderName,
} from './chat-providers.js';
import { createConversations, type ConversationRecord, type MessageRecord } from '../conversations/conversations.js';
import type { ChatCipher } from './chat-cipher.js';
import { sessionView, sourceView, turnView } from './chat-views.js';
import { draftAnswer, NOT_FOUND_ANSWER } from './draft-answer.js';
import { DEFAULT_MIN_SIMILARITY, retrieveSources, type RetrievedSource } from './retrieve.js';

/** The answer options, accepted at the top level of the body and inside `config` (LongParser reads both). */
export interface ChatOptions {
  llm_provider?: LlmProviderName;
  llm_model?: string;
  top_k?: number;
  base_url?: string;
  api_key?: string;
  max_tokens?: number;
  temperature?: number;
  min_similarity?: number;
}

export interface AskRequest extends ChatOptions {
  session_id?: string;
  job_id?: string;
  question: string;
  require_approval?: boolean;
  config?: ChatOptions;
  /** With session_id: a second request with the same key gets the first one's answer, never a second answer. */
  idempotency_key?: string;
}

export interface ResumeRequest {
  session_id: string;
  thread_id: string;
  action: 'approve' | 'edit' | 'reject';
  edited_answer?: string;
}

export interface AskEvents {
  signal?: AbortSignal;
  /** As soon as retrieval is done, before any token. */
  onSources?: (e: { session_id: string; turn_id: string; sources: ReturnType<typeof sourceView>[] }) => void;
  onToken?: (text: string) => void;
}

export interface ChatDeps extends ChatProviderDeps {
  /** Conversations, jobs for findJob, and collections for retrieval. */
  store: Pick<Store, 'conversations' | 'jobs' | 'collections'>;
  search: Search;
  clock: Clock;
  /** Seals questions and answers before they are stored (setting encrypt_chats). */
  cipher: ChatCipher;
}

export { NOT_FOUND_ANSWER };
const DEFAULT_TOP_K = 5;
const DEFAULT_MAX_TOKENS = 256;

type AnswerView = ReturnType<typeof answerView>;

/** A request whose idempotency_key was seen: the first request's answer, stored or still being written. */
interface Replay {
  replay: Promise<AnswerView>;
}

/** The first request with an idempotency key: settles the waiters of any repeat that comes meanwhile. */
interface Claim {
  key: string;
  idempotencyKey: string;
  resolve(v: AnswerView): void;
  reject(err: unknown): void;
}

/** Everything known before the first token: checked request, session, provider, sources. */
interface Fresh {
  claim?: Claim;
  session: ConversationRecord;
  turnId: string;
  question: string;
  askedBy: string;
  requireApproval: boolean;
  generator: ChatGenerator | 'extractive';
  sources: RetrievedSource[];
  prior: MessageRecord[];
  maxTokens: number;
  temperature: number;
  retrievalMs: number;
  startedAt: number;
}

type Prepared = Fresh | Replay;

/** A turn as POST /chat answers it. */
function answerView(t: MessageRecord) {
  const v = turnView(t);
  return {
    session_id: t.conversation_id,
    turn_id: v.turn_id,
    status: v.status,
    // While pending the draft is the answer shown to the reviewer; a rejected one shows nothing.
    answer: v.status === 'rejected' ? '' : (v.answer ?? v.draft),
    sources: v.sources,
    citations: v.citations,
    cited_by: v.cited_by,
    not_found: v.not_found,
    thread_id: v.thread_id,
    llm_provider: v.llm_provider,
    llm_model: v.llm_model,
    review: v.review,
    usage: v.usage,
  };
}

export function createChat(deps: ChatDeps) {
  const conversations = createConversations({ store: deps.store, cipher: deps.cipher });
  const now = () => isoNow(deps.clock);

  /** A job's chat session; another scope's conversation is as unknown here as one that does not exist. */
  async function session(sessionId: string): Promise<ConversationRecord> {
    const c = await conversations.get(sessionId);
    if (c?.scope !== 'job') throw new AppError('SESSION_NOT_FOUND', `chat session ${sessionId} does not exist`);
    return c;
  }

  async function createSession(jobId: string, title: string | null, by: string): Promise<ConversationRecord> {
    const at = now();
    return conversations.create({
      conversation_id: randomUUID(),
      scope: 'job',
      job_id: jobId,
      bot_id: null,
      collection: null,
      kind: 'text',
      title,
      created_by: by,
      created_at: at,
      updated_at: at,
    });
  }

  /** Earlier answers a reader has (complete, approved or edited), oldest first, for follow-up questions. */
  const answeredTurns = async (sessionId: string) =>
    (await conversations.messages(sessionId)).filter((t) => t.status === 'complete' && t.answer && !t.not_found);
  /** Answers being written for an idempotency key (session + key): a repeat arriving meanwhile waits for it. */
  const inFlight = new Map<string, Promise<AnswerView>>();

  /** A replay when the key was seen in the session, else a claim on it (undefined without a key). */
  async function claimKey(req: AskRequest): Promise<Replay | Claim | undefined> {
    if (!req.idempotency_key || !req.session_id) return undefined;
    const key = `${req.session_id}\u0000${req.idempotency_key}`;
    const stored = await conversations.messageByIdempotencyKey(req.session_id, req.idempotency_key);
    if (stored) return { replay: Promise.resolve(answerView(stored)) };
    // Checked after the read above: a first request that claimed the key meanwhile is found here.
    const running = inFlight.get(key);
    if (running) return { replay: running };
    let claim!: Claim;
    const settled = new Promise<AnswerView>((resolve, reject) => {
      claim = { key, idempotencyKey: req.idempotency_key!, resolve, reject };
    });
    settled.catch(() => undefined); // a failure reaches the first request; waiters see it only if there are any
    inFlight.set(key, settled);
    return claim;
  }

  function release(claim: Claim | undefined, outcome: { view: AnswerView } | { error: unknown }): void {
    if (!claim) return;
    inFlight.delete(claim.key);
    if ('view' in outcome) claim.resolve(outcome.view);
    else claim.reject(outcome.error);
  }

  async function sessionFor(req: AskRequest, by: string): Promise<ConversationRecord> {
    if (req.session_id) {
      const s = await session(req.session_id);
      if (req.job_id && req.job_id !== s.job_id) {
        throw new AppError(
          'VALIDATION_FAILED',
          `session ${s.conversation_id} is about job ${s.job_id}, not ${req.job_id}`,
          [{ field: 'job_id' }],
        );
      }
      return s;
    }
    if (!req.job_id)
      throw new AppError('VALIDATION_FAILED', 'name a session_id or a job_id', [{ field: 'session_id' }]);
    await findJob(deps.store, req.job_id);
    return createSession(req.job_id, null, by);
  }

  async function prepare(req: AskRequest, by: string): Promise<Prepared> {
    if (req.session_id) await session(req.session_id);
    // Before the provider is even resolved: a repeated request never asks (nor needs a model) again.
    const claimed = await claimKey(req);
    if (claimed && 'replay' in claimed) return claimed;
    try {
      return { ...(await prepareFresh(req, by)), claim: claimed };
    } catch (err) {
      release(claimed, { error: err });
      throw err;
    }
  }

  async function prepareFresh(req: AskRequest, by: string): Promise<Fresh> {
    const startedAt = performance.now();
    const o: ChatOptions = {
      ...req.config,
      ...Object.fromEntries(
        Object.entries(req).filter(([k, v]) => k !== 'config' && k !== 'idempotency_key' && v !== undefined),
      ),
    };
    const provider = o.llm_provider ?? 'local';
    // The provider first: a missing model is a 503 before any work, and before a stream opens.
    const generator =
      provider === 'extractive'
        ? 'extractive'
        : await resolveChatGenerator({ provider, model: o.llm_model, base_url: o.base_url, api_key: o.api_key }, deps);
    const session = await sessionFor(req, by);
    const prior = await answeredTurns(session.conversation_id);
    const sources = await retrieveSources(deps, {
      scope: { jobId: session.job_id! },
      question: req.question,
      previousQuestion: prior.at(-1)?.question,
      topK: o.top_k ?? DEFAULT_TOP_K,
      minSimilarity: o.min_similarity ?? DEFAULT_MIN_SIMILARITY,
    });
    return {
      session,
      turnId: randomUUID(),
      question: req.question,
      askedBy: by,
      requireApproval: req.require_approval ?? false,
      generator,
      sources,
      prior,
      maxTokens: o.max_tokens ?? DEFAULT_MAX_TOKENS,
      temperature: o.temperature ?? 0,
      retrievalMs: performance.now() - startedAt,
      startedAt,
    };
  }

  const draft = (p: Fresh, ev: AskEvents) =>
    draftAnswer(
      {
        generator: p.generator,
        question: p.question,
        sources: p.sources,
        prior: p.prior.map((t) => ({ question: t.question, answer: t.answer ?? '' })),
        maxTokens: p.maxTokens,
        temperature: p.temperature,
      },
      ev,
    );

  /** A repeat of an idempotent request: the first answer, streamed as one piece when streaming. */
  async function replay(p: Replay, ev: AskEvents): Promise<AnswerView> {
    const view = await p.replay;
    ev.onSources?.({ session_id: view.session_id, turn_id: view.turn_id, sources: view.sources });
    if (view.answer) ev.onToken?.(view.answer);
    return view;
  }

  async function answer(p: Prepared, ev: AskEvents): Promise<AnswerView> {
    if ('replay' in p) return replay(p, ev);
    try {
      const view = await answerFresh(p, ev);
      if (view.status === 'cancelled') {
        release(p.claim, {
          error: new AppError(
            'INVALID_STATE',
            'the first request with this idempotency_key was cancelled before it was answered; ask again',
          ),
        });
      } else release(p.claim, { view });
      return view;
    } catch (err) {
      release(p.claim, { error: err });
      throw err;
    }
  }

  async function answerFresh(p: Fresh, ev: AskEvents): Promise<AnswerView> {
    ev.onSources?.({ session_id: p.session.conversation_id, turn_id: p.turnId, sources: p.sources.map(sourceView) });
    const base = {
      message_id: p.turnId,
      conversation_id: p.session.conversation_id,
      question: p.question,
      asked_by: p.askedBy,
      created_at: now(),
      sources: p.sources.map(({ label, chunk_id, score, text, page_numbers, section_path }) => ({
        label,
        chunk_id,
        score,
        text,
        page_numbers,
        section_path,
      })),
      provider: p.generator === 'extractive' ? 'extractive' : p.generator.provider,
      model: p.generator === 'extractive' ? null : p.generator.model,
    };
    let d: Awaited<ReturnType<typeof draft>>;
    try {
      d = await draft(p, ev);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      // A hang-up before the provider's first byte surfaces as the abort's error: that turn was cancelled.
      if (!ev.signal?.aborted) {
        await conversations.add({
          ...base,
          status: 'failed',
          error: { code: e.code ?? 'INTERNAL', message: e.message ?? String(err) },
          completed_at: now(),
        });
        throw err;
      }
      d = { text: '', notFound: false, citations: [], citedBy: null, aborted: true, usage: {} } satisfies Awaited<
        ReturnType<typeof draft>
      >;
    }
    const status = d.aborted ? 'cancelled' : p.requireApproval ? 'pending_review' : 'complete';
    const threadId = status === 'pending_review' ? randomUUID() : null;
    const row = await conversations.add({
      ...base,
      status,
      draft: d.text,
      answer: status === 'complete' ? d.text : null,
      not_found: d.notFound,
      citations: d.citations,
      cited_by: d.citedBy,
      thread_id: threadId,
      // A cancelled turn keeps no key: asking again with it asks anew.
      idempotency_key: status === 'cancelled' ? null : (p.claim?.idempotencyKey ?? null),
      usage: { ...d.usage, retrieval_ms: p.retrievalMs, total_ms: performance.now() - p.startedAt },
      completed_at: status === 'pending_review' ? null : now(),
    });
    return answerView(row);
  }

  async function resume(req: ResumeRequest, by: string) {
    await session(req.session_id).catch(() => {
      throw new AppError('THREAD_NOT_FOUND', `no chat thread ${req.thread_id} in session ${req.session_id}`);
    });
    // An edit keeps the draft's citations unless the reviewer wrote markers of their own.
    return answerView(
      await conversations.resume(
        req.session_id,
        req,
        by,
        now(),
        (answer, held) => checkCitations(answer, held.sources).citations,
      ),
    );
  }

  return {
    async createSession(body: { job_id: string; title?: string }, by: string) {
      await findJob(deps.store, body.job_id);
      return sessionView(await createSession(body.job_id, body.title ?? null, by));
    },
    async getSession(sessionId: string) {
      return sessionView(await session(sessionId), await conversations.messages(sessionId));
    },
    /** Deletes a session with its turns (LongParser: DELETE /chat/sessions/{id}). */
    async deleteSession(sessionId: string) {
      await session(sessionId);
      await conversations.delete(sessionId);
      return { status: 'deleted' as const, session_id: sessionId };
    },
    /** Rates an answer of the session (up or down, with a note), as bots' answers are rated. */
    async rate(sessionId: string, turnId: string, r: { rating: 'up' | 'down'; note?: string | null }) {
      await session(sessionId);
      const done = await conversations.rate(sessionId, turnId, r);
      if (!done) throw new AppError('MESSAGE_NOT_FOUND', `chat session ${sessionId} has no turn ${turnId}`);
      return { session_id: sessionId, turn_id: turnId, ...done };
    },
    prepare,
    answer,
    ask: async (req: AskRequest, by: string, ev: AskEvents = {}) => answer(await prepare(req, by), ev),
    resume,
  };
}
export type Chat = ReturnType<typeof createChat>;
export type PreparedAnswer = Awaited<ReturnType<Chat['prepare']>>;

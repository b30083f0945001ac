import type { AppContext } from '../app-context.js';
import type { ChatAnswer, ChatSession, ConversationSummary, SessionTurn } from '../api/types.js';
import { streamedAnswer } from '../search/sse.js';
import { sourceLink, type SourceRef } from '../search/source-link.js';
import { h } from '../ui/dom.js';
import { highlightSource, renderAnswer } from './answer-text.js';
import type { ChatTransport, TurnFacts } from './chat-transport.js';
import { chunkBlocks } from './chunk-blocks.js';
import type { TurnParts } from './turn-view.js';

type Sources = ChatAnswer['sources'];

/**
 * A job chat's turn as the panel keeps it. The stored turn (GET /chat/sessions/{id}) and a fresh answer
 * (POST /chat, /chat/resume) carry the same facts under different shapes; both are read into this one.
 */
export interface JobTurn {
  turn_id: string;
  question: string;
  status: SessionTurn['status'];
  /** The answer; while held, its draft. */
  answer: string;
  not_found: boolean;
  sources: Sources;
  citations: ChatAnswer['citations'];
  thread_id: string | null;
  review: SessionTurn['review'];
  rating: SessionTurn['rating'];
  error: SessionTurn['error'];
}

const stored = (t: SessionTurn): JobTurn => ({
  ...t,
  answer: t.answer ?? (t.status === 'pending_review' ? t.draft : ''),
});
const answered = (a: ChatAnswer, question: string): JobTurn => ({ ...a, question, rating: null, error: null });

/** Providers a reviewer can pick here; openai and ollama need a server address, set through the API. */
const PROVIDERS = [
  ['', 'Server default'],
  ['local', 'Local model'],
  ['extractive', 'Extractive (quotes, no language model)'],
] as const;

/**
 * A job's chat: its sessions are the conversations, answers stream from POST /chat, every retrieved source is listed under the answer with the cited ones marked, and
 * each source opens the review desk on its first block.
 */
export function jobTransport(ctx: AppContext, jobId: string): ChatTransport<JobTurn> {
  const { api, caps } = ctx;
  const job = encodeURIComponent(jobId);
  const blocksOf = chunkBlocks(api, jobId);
  const provider = h(
    'select',
    { class: 'provider', 'aria-label': 'Answer with' },
    ...PROVIDERS.map(([v, text]) => h('option', { value: v }, text)),
  );

  /** Drawn at once (each source opening its page), then again with the blocks once the job's chunk list is read. */
  function sourceList(list: HTMLElement, sources: Sources, cited: Set<string>): void {
    const draw = (blocks: Map<string, string[]>) => {
      const refs: SourceRef[] = sources.map((s) => ({ ...s, block_ids: blocks.get(s.chunk_id) ?? [] }));
      list.replaceChildren(...refs.map((s) => sourceLink(jobId, s, cited.has(s.chunk_id))));
    };
    draw(new Map());
    void blocksOf().then(draw);
  }

  return {
    kind: 'job',
    placeholder: 'Ask about this document',
    controls: [provider],
    tray: null,
    emptyQuestion: () => null,
    list: async (signal) =>
      (await api.get<{ conversations: ConversationSummary[] }>(`/jobs/${job}/conversations`, signal)).conversations,
    history: async (id, signal) =>
      (await api.get<ChatSession>(`/chat/sessions/${encodeURIComponent(id)}`, signal)).turns.map(stored),
    start: async () => (await api.send<ChatSession>('POST', '/chat/sessions', { job_id: jobId })).session_id,
    async ask(sessionId, q, live, signal) {
      const body = {
        session_id: sessionId,
        question: q.text,
        require_approval: q.hold,
        stream: true,
        ...(provider.value ? { llm_provider: provider.value } : {}),
      };
      const list = h('ol', { class: 'sources' });
      live.sources.replaceChildren(list);
      const res = await api.stream('/chat', body, signal);
      const done = await streamedAnswer<ChatAnswer, { sources?: Sources; text?: string; message?: string }>(
        res,
        (event, data, raw) => {
          if (event === 'sources' && data.sources) sourceList(list, data.sources, new Set());
          else if (event === 'token') live.append(data.text ?? '');
          else if (event === 'error') live.fail(data.message ?? raw);
        },
      );
      return done && answered(done, q.text);
    },
    needsNew: () => null,
    facts: (t): TurnFacts => ({
      id: t.turn_id,
      question: t.question,
      answer: t.answer,
      status: t.status,
      notFound: t.not_found,
      error: t.error?.message ?? null,
      rating: t.rating,
      threadId: t.thread_id,
      review: t.review,
      images: [],
    }),
    showSources(t, parts: TurnParts) {
      const list = h('ol', { class: 'sources' });
      parts.sources.replaceChildren(list);
      if (!t.not_found && t.answer.trim())
        renderAnswer(parts.answer, t.answer, new Set(t.sources.map((s) => s.label)), (label) =>
          highlightSource(list, label),
        );
      sourceList(list, t.sources, new Set(t.citations.map((c) => c.chunk_id)));
    },
    rate: caps.chatFeedback
      ? async (id, turnId, rating) =>
          void (await api.send(
            'POST',
            `/chat/sessions/${encodeURIComponent(id)}/turns/${encodeURIComponent(turnId)}/feedback`,
            { rating },
          ))
      : null,
    resume: caps.chatResume
      ? async (id, threadId, action, edited) => {
          const done = await api.send<ChatAnswer>('POST', '/chat/resume', {
            session_id: id,
            thread_id: threadId,
            action,
            ...(edited ? { edited_answer: edited } : {}),
          });
          return answered(done, '');
        }
      : null,
    // Beside the model download: answering at once with quotes from the document, which needs no model.
    instead(again) {
      const quotes = h(
        'button',
        { type: 'button', class: 'answer-with-quotes', onclick: () => ((provider.value = 'extractive'), again()) },
        'Answer with quotes instead',
      );
      return h(
        'p',
        { class: 'quotes-instead' },
        'Or answer now with sentences quoted from the document (no model needed): ',
        quotes,
      );
    },
  };
}

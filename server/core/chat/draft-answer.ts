import type { ChatMessage } from '../../models/llm/llm-protocol.js';
import type { ChatGenerator } from './chat-providers.js';
import { attributeByOverlap, checkCitations, type Citation } from './citations.js';
import { extractiveAnswer } from './extractive.js';
import { buildMessages, NOT_FOUND_REPLY, type PriorTurn } from './prompt.js';
import type { RetrievedSource } from './retrieve.js';

export const NOT_FOUND_ANSWER =
  'I could not find the answer to this question in the approved content of this document.';

export interface DraftInput {
  generator: ChatGenerator | 'extractive';
  question: string;
  sources: RetrievedSource[];
  prior: PriorTurn[];
  maxTokens: number;
  temperature: number;
  /** A bot's own instructions, put before the grounding rules. */
  system?: string;
  /** What to say when nothing relevant was retrieved. */
  notFoundAnswer?: string;
  /** Images shown to a multimodal model with the question (their OCR text is among the sources too). */
  images?: ChatMessage['images'];
}

export interface DraftEvents {
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface Draft {
  text: string;
  notFound: boolean;
  citations: Citation[];
  citedBy: 'model' | 'overlap' | null;
  aborted: boolean;
  usage: Record<string, number>;
}

/**
 * One grounded answer, shared by job chats and bot chats: nothing retrieved answers "not found" without a
 * model; otherwise the provider (or the extractive reader) writes it and what it cites is checked against
 * what was retrieved; an answer citing nothing is attributed by the words it shares with the sources.
 */
export async function draftAnswer(p: DraftInput, ev: DraftEvents): Promise<Draft> {
  const notFound = p.notFoundAnswer ?? NOT_FOUND_ANSWER;
  if (p.sources.length === 0) {
    ev.onToken?.(notFound);
    return { text: notFound, notFound: true, citations: [], citedBy: null, aborted: false, usage: {} };
  }
  if (p.generator === 'extractive') {
    const x = extractiveAnswer(p.question, p.sources);
    // Sources holding no sentence to quote (headings, table cells, a contents page): that is "not found",
    // said plainly, never an empty answer.
    if (!x.answer.trim()) {
      ev.onToken?.(notFound);
      return { text: notFound, notFound: true, citations: [], citedBy: null, aborted: false, usage: {} };
    }
    ev.onToken?.(x.answer);
    return { text: x.answer, notFound: false, citations: x.citations, citedBy: 'model', aborted: false, usage: {} };
  }
  const buildStart = performance.now();
  const built = buildMessages(p.question, p.sources, p.prior, p.system, p.generator.sourceText);
  const messages = p.images?.length ? [...built.slice(0, -1), { ...built.at(-1)!, images: p.images }] : built;
  const promptMs = performance.now() - buildStart;
  const genStart = performance.now();
  let firstTokenMs: number | undefined;
  const r = await p.generator.generate(messages, {
    maxTokens: p.maxTokens,
    temperature: p.temperature,
    signal: ev.signal,
    onToken: (t) => {
      firstTokenMs ??= performance.now() - genStart;
      ev.onToken?.(t);
    },
  });
  const generationMs = performance.now() - genStart;
  const usage: Record<string, number> = {
    prompt_ms: promptMs,
    load_ms: r.loadMs,
    first_token_ms: firstTokenMs ?? generationMs,
    generation_ms: generationMs,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
  };
  if (r.cachedPromptTokens !== undefined) usage.cached_prompt_tokens = r.cachedPromptTokens;
  if (r.prefillThreads !== undefined) usage.prefill_threads = r.prefillThreads;
  const text = r.text.trim();
  const checked = checkCitations(text, p.sources);
  if (checked.citations.length === 0 && NOT_FOUND_REPLY.test(text)) {
    return { text: notFound, notFound: true, citations: [], citedBy: null, aborted: r.stopReason === 'abort', usage };
  }
  const overlap = checked.citations.length ? [] : attributeByOverlap(text, p.sources);
  return {
    text,
    notFound: false,
    citations: checked.citations.length ? checked.citations : overlap,
    citedBy: checked.citations.length ? 'model' : overlap.length ? 'overlap' : null,
    aborted: r.stopReason === 'abort',
    usage: { ...usage, dropped_citations: checked.dropped.length },
  };
}

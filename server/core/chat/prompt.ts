import type { ChatMessage } from '../../models/llm/llm-protocol.js';

/** A retrieved chunk as the prompt shows it: labelled S1, S2… so a small model can cite it in two tokens. */
export interface PromptSource {
  label: string;
  chunk_id: string;
  page_numbers: number[];
  section_path: string[];
  text: string;
}

export interface PriorTurn {
  question: string;
  answer: string;
}

/** The answer a model gives when the sources do not hold one; the service recognises it. */
export const NOT_FOUND_MARK = 'NOT FOUND';

// Per source: enough for a section of a paper, short enough that 5 sources and 3 turns fit 4k tokens.
const MAX_SOURCE_CHARS = 1200;
const MAX_PRIOR_TURNS = 3;

const SYSTEM = [
  'You answer questions about a document using only the numbered sources given with the question.',
  'Quote or closely paraphrase the sources. After each sentence, cite the source it comes from in square brackets, like [S1].',
  `If the sources do not contain the answer, reply exactly: ${NOT_FOUND_MARK}`,
].join(' ');

export function sourceBlock(sources: PromptSource[]): string {
  return sources
    .map((s) => {
      const where = [s.section_path.join(' > '), s.page_numbers.length ? `page ${s.page_numbers.join(', ')}` : ''].filter(Boolean).join(', ');
      const text = s.text.length > MAX_SOURCE_CHARS ? `${s.text.slice(0, MAX_SOURCE_CHARS)}…` : s.text;
      return `[${s.label}]${where ? ` (${where})` : ''}\n${text}`;
    })
    .join('\n\n');
}

/**
 * The messages for one grounded answer: instructions, the last few turns of the session (so follow-ups
 * like "and what does it release?" make sense), then the sources and the question together in the last
 * user message, where small models attend best.
 */
export function buildMessages(question: string, sources: PromptSource[], prior: PriorTurn[]): ChatMessage[] {
  const history = prior.slice(-MAX_PRIOR_TURNS).flatMap((t): ChatMessage[] => [
    { role: 'user', content: t.question },
    { role: 'assistant', content: t.answer },
  ]);
  const last = `Sources:\n${sourceBlock(sources)}\n\nQuestion: ${question}\nAnswer with citations:`;
  return [{ role: 'system', content: SYSTEM }, ...history, { role: 'user', content: last }];
}

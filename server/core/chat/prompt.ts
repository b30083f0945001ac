import type { ChatMessage } from '../../models/llm/llm-protocol.js';
import { focusSources } from './focus.js';

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

/** How a model says the sources do not hold the answer; such a reply counts as not found. */
export const NOT_FOUND_REPLY = /\bnot found\b|\b(?:do|does) not (?:contain|mention|say)\b/i;

// Per source: enough for a section of a paper, short enough that 5 sources and 3 turns fit 4k tokens.
const MAX_SOURCE_CHARS = 1200;
const MAX_PRIOR_TURNS = 3;

// Worded for small instruct models, tried on SmolLM2-135M with one and two sources: sources and question
// together in the user message ending "Answer:", and a short system line. Without "Answer:" it echoed the
// question or drifted off the sources; with it, it answers from (or quotes) the right source. It seldom
// writes the tag, so the service attributes such answers by the words they share with a source.
// Telling it to say NOT FOUND when the sources lack the answer made it say so for answerable questions
// too: relevance is decided by retrieval instead (retrieve.ts), and a "not found" reply is still recognised.
const SYSTEM =
  'You are a helpful assistant. Answer in one short sentence from the sources and end with the source tag, like [S1].';

export function sourceBlock(sources: PromptSource[]): string {
  return sources
    .map((s) => {
      // One line per source keeps tag and text together; the chunk's heading (its first line) reads as
      // "Heading: text". Pages stay out of the prompt: the small model copied them instead of answering.
      const cut = s.text.length > MAX_SOURCE_CHARS ? `${s.text.slice(0, MAX_SOURCE_CHARS)}…` : s.text;
      const [first = '', ...rest] = cut.split(/\n\s*\n/);
      const text = rest.length ? `${first.trim()}: ${rest.join(' ')}` : first;
      return `[${s.label}] ${text.replace(/\s*\n\s*/g, ' ')}`;
    })
    .join('\n');
}

/**
 * How much of each source the model reads: whole chunks (cut at 1,200 characters), or only the sentences
 * that bear on the question (focus.ts), for a local model whose prompt reading is most of an answer's wait.
 */
export type SourceText = 'chunks' | 'sentences';

/**
 * The messages for one grounded answer: instructions, the last few turns of the session (so follow-ups
 * like "and what does it release?" make sense), then the sources and the question together in the last
 * user message, where small models attend best. The system message comes first and stays the same from
 * one question to the next, so a local model keeps it read (llm-host.ts).
 */
export function buildMessages(
  question: string,
  sources: PromptSource[],
  prior: PriorTurn[],
  system?: string,
  sourceText: SourceText = 'chunks',
): ChatMessage[] {
  const history = prior.slice(-MAX_PRIOR_TURNS).flatMap((t): ChatMessage[] => [
    { role: 'user', content: t.question },
    // Earlier tags named that turn's sources, not this one's: left out so they cannot be cited by mistake.
    { role: 'assistant', content: t.answer.replace(/\s*\[[^\]\n]*\]/g, '') },
  ]);
  const shown = sourceText === 'sentences' ? focusSources(question, sources) : sources;
  const last = `Sources:\n${sourceBlock(shown)}\n\nQuestion: ${question}\nAnswer:`;
  return [
    { role: 'system', content: system ? `${system.trim()}\n${SYSTEM}` : SYSTEM },
    ...history,
    { role: 'user', content: last },
  ];
}

import { scoreSentences, type ScoredSentence } from './extractive.js';
import type { PromptSource } from './prompt.js';

// A local model reads every prompt token before its first word (SmolLM2 on one core: ~165 tokens/s), so
// five whole chunks made a first token 5-8 s away. What it needs of them is the few sentences that bear
// on the question: the same scorer as the extractive reader picks them.
const SENTENCES_PER_SOURCE = 3;
const BUDGET_CHARS = 1500;
/** A "sentence" can be a whole table or list with no full stop: cut, so one source cannot take the budget. */
const MAX_SENTENCE_CHARS = 400;
/** A chunk's first paragraph this short, with no full stop, is its heading: kept, as it names what the source is about. */
const HEADING = /^([^\n]{1,100}?)[ \t]*\n\s*\n/;

const clip = (text: string) => (text.length > MAX_SENTENCE_CHARS ? `${text.slice(0, MAX_SENTENCE_CHARS)}…` : text);

/**
 * The sources as a local model is shown them: each cut to its heading and the sentences sharing the
 * question's rarest words (at most three), or, where none does, its opening sentences, since retrieval
 * judged it relevant. Every source keeps its best sentence before any gets a second, within 1,500
 * characters in all; sentences stay in their order in the chunk, a gap between them marked "…". A source
 * left with nothing is left out, and the labels stay as retrieved, so the citations still resolve.
 */
export function focusSources<S extends PromptSource>(question: string, sources: S[]): S[] {
  const scored = scoreSentences(question, sources);
  const wanted = sources.map((source, i): ScoredSentence<S>[] => {
    const own = scored.filter((s) => s.source === source);
    // Nothing that reads as a sentence (a table, a list of names): its opening, as one piece.
    if (own.length === 0 && source.text.trim())
      return [{ source, rank: i, start: 0, end: source.text.length, text: source.text.trim(), score: 0 }];
    const hits = own.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
    return (hits.length ? hits : own).slice(0, SENTENCES_PER_SOURCE);
  });
  const picked = sources.map(() => [] as ScoredSentence<S>[]);
  let used = 0;
  // Round by round: each source's next-best sentence, in retrieval's order, while the budget lasts.
  for (let round = 0; round < SENTENCES_PER_SOURCE; round++) {
    wanted.forEach((list, i) => {
      const s = list[round];
      if (!s) return;
      const cost = Math.min(s.text.length, MAX_SENTENCE_CHARS) + 1;
      if (used + cost > BUDGET_CHARS && (round > 0 || used > 0)) return;
      picked[i]!.push(s);
      used += cost;
    });
  }
  return sources.flatMap((source, i) => {
    const chosen = picked[i]!.sort((a, b) => a.start - b.start);
    if (chosen.length === 0) return [];
    const head = HEADING.exec(source.text)?.[1];
    // A heading with three content words scores as a sentence of its own: then it is not repeated.
    const heading = head && !/[.!?]$/.test(head) && chosen[0]!.start > 0 ? head : undefined;
    const body = chosen
      .map((s, k) => `${k > 0 && /\S/.test(source.text.slice(chosen[k - 1]!.end, s.start)) ? '… ' : ''}${clip(s.text)}`)
      .join(' ');
    return [{ ...source, text: heading ? `${heading}\n\n${body}` : body }];
  });
}

import { sentenceStarts, trimmedEnd } from '../chunking/sentences.js';
import type { Citation, CitableSource } from './citations.js';
import { contentWords } from './words.js';

export interface ExtractiveAnswer {
  answer: string;
  citations: Citation[];
  /** The sentences quoted, exactly as they stand in their chunks. */
  quotes: { label: string; chunk_id: string; text: string }[];
}

/** A sentence of a retrieved source, where it stands in the source's text, and how much it shares with the question. */
export interface ScoredSentence<S extends CitableSource = CitableSource> {
  source: S;
  /** The source's place in retrieval's order (0 = best). */
  rank: number;
  start: number;
  end: number;
  text: string;
  /** The summed rarity (idf) of the question's words it holds, less a hair per rank so the better source wins ties. */
  score: number;
}

function sentencesOf<S extends CitableSource>(source: S, rank: number) {
  const starts = sentenceStarts(source.text);
  return starts.flatMap((start, i) => {
    const end = trimmedEnd(source.text, start, starts[i + 1] ?? source.text.length);
    const text = source.text.slice(start, end);
    const words = contentWords(text);
    // Headings and fragments ("Photosynthesis", "Table 2") carry no answer.
    return words.length >= 3 ? [{ source, rank, start, end, text, words }] : [];
  });
}

/**
 * Every sentence of the sources, scored by the question's words it holds, weighted by how rare each is
 * among these sentences: the reader of the extractive answer and of the focused prompt (focus.ts).
 */
export function scoreSentences<S extends CitableSource>(question: string, sources: S[]): ScoredSentence<S>[] {
  const sentences = sources.flatMap((s, i) => sentencesOf(s, i));
  const asked = new Set(contentWords(question));
  const df = new Map<string, number>();
  for (const s of sentences) for (const w of new Set(s.words)) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w: string) => Math.log(1 + sentences.length / (df.get(w) ?? 1));
  return sentences.map(({ words, ...s }) => ({
    ...s,
    score: [...new Set(words)].filter((w) => asked.has(w)).reduce((sum, w) => sum + idf(w), 0) - s.rank * 1e-3,
  }));
}

/**
 * An answer without a language model: the sentences of the retrieved chunks that share the most (and
 * rarest) words with the question, quoted verbatim with their citations. A question none of them shares
 * a word with gets the opening sentence of the best-ranked chunk, since retrieval judged it relevant.
 */
export function extractiveAnswer(question: string, sources: CitableSource[], maxSentences = 2): ExtractiveAnswer {
  const scored = scoreSentences(question, sources);
  if (scored.length === 0) return { answer: '', citations: [], quotes: [] };
  const hits = scored
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, maxSentences);
  const best = Math.min(...scored.map((x) => x.rank));
  const chosen = hits.length ? hits : [scored.find((s) => s.rank === best)!];
  const quotes = chosen.map((s) => ({ label: s.source.label, chunk_id: s.source.chunk_id, text: s.text }));
  const citations = [
    ...new Map(
      chosen.map((s) => [
        s.source.chunk_id,
        { label: s.source.label, chunk_id: s.source.chunk_id, page_numbers: s.source.page_numbers },
      ]),
    ).values(),
  ];
  return { answer: quotes.map((q) => `"${q.text}" [${q.label}]`).join(' '), citations, quotes };
}

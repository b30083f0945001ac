import { sentenceStarts, trimmedEnd } from '../chunking/sentences.js';
import type { Citation, CitableSource } from './citations.js';
import { contentWords } from './words.js';

export interface ExtractiveAnswer {
  answer: string;
  citations: Citation[];
  /** The sentences quoted, exactly as they stand in their chunks. */
  quotes: { label: string; chunk_id: string; text: string }[];
}

interface Sentence {
  source: CitableSource;
  rank: number;
  text: string;
  words: string[];
}

function sentencesOf(source: CitableSource, rank: number): Sentence[] {
  const starts = sentenceStarts(source.text);
  return starts.flatMap((start, i) => {
    const end = trimmedEnd(source.text, start, starts[i + 1] ?? source.text.length);
    const text = source.text.slice(start, end);
    const words = contentWords(text);
    // Headings and fragments ("Photosynthesis", "Table 2") carry no answer.
    return words.length >= 3 ? [{ source, rank, text, words }] : [];
  });
}

/**
 * An answer without a language model: the sentences of the retrieved chunks that share the most (and
 * rarest) words with the question, quoted verbatim with their citations. A question none of them shares
 * a word with gets the opening sentence of the best-ranked chunk, since retrieval judged it relevant.
 */
export function extractiveAnswer(question: string, sources: CitableSource[], maxSentences = 2): ExtractiveAnswer {
  const sentences = sources.flatMap((s, i) => sentencesOf(s, i));
  if (sentences.length === 0) return { answer: '', citations: [], quotes: [] };
  const asked = new Set(contentWords(question));
  const df = new Map<string, number>();
  for (const s of sentences) for (const w of new Set(s.words)) df.set(w, (df.get(w) ?? 0) + 1);
  const idf = (w: string) => Math.log(1 + sentences.length / (df.get(w) ?? 1));
  const scored = sentences.map((s) => ({
    s,
    // Retrieval's order breaks ties: the better-ranked chunk's sentence first.
    score: [...new Set(s.words)].filter((w) => asked.has(w)).reduce((sum, w) => sum + idf(w), 0) - s.rank * 1e-3,
  }));
  const hits = scored.filter((x) => x.score > 0).sort((a, b) => b.score - a.score).slice(0, maxSentences);
  const chosen = hits.length ? hits.map((x) => x.s) : [sentences.find((s) => s.rank === Math.min(...sentences.map((x) => x.rank)))!];
  const quotes = chosen.map((s) => ({ label: s.source.label, chunk_id: s.source.chunk_id, text: s.text }));
  const citations = [...new Map(chosen.map((s) => [s.source.chunk_id, { label: s.source.label, chunk_id: s.source.chunk_id, page_numbers: s.source.page_numbers }])).values()];
  return { answer: quotes.map((q) => `"${q.text}" [${q.label}]`).join(' '), citations, quotes };
}

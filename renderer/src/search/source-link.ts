import { h } from '../ui/dom.js';

export interface SourceRef {
  chunk_id: string;
  label?: string;
  text: string;
  /** Cosine similarity of the question or query and the passage, 0..1 (POST /search and chat sources). */
  score?: number | null;
  page_numbers?: number[];
  block_ids?: string[];
  section_path?: string[];
}

/**
 * The similarity as a person reads it: a bar, a percentage and a word. The words follow what the
 * default model (all-MiniLM-L6-v2) gives: related question/passage pairs score about 0.35-0.7.
 */
export function relevance(score: number): HTMLElement {
  const value = Math.min(1, Math.max(0, score));
  const pct = Math.round(value * 100);
  const word = value >= 0.5 ? 'strong match' : value >= 0.3 ? 'partial match' : 'weak match';
  return h(
    'span',
    {
      class: 'relevance',
      title: `Similarity of meaning between your words and this passage: ${value.toFixed(2)} (1 = the same meaning)`,
    },
    h('meter', {
      min: '0',
      max: '1',
      low: '0.3',
      high: '0.5',
      optimum: '1',
      value: String(value),
      'aria-hidden': 'true',
    }),
    h('span', { class: 'relevance-text' }, `${pct}% · ${word}`),
  );
}

/** A search hit or a chat source: opens the review desk on its first block (selected), else its page. */
export function sourceLink(jobId: string, s: SourceRef, cited = false): HTMLElement {
  const id = encodeURIComponent(jobId);
  const first = s.block_ids?.[0];
  const href = first
    ? `#/jobs/${id}/review?block=${encodeURIComponent(first)}`
    : `#/jobs/${id}/review?page=${s.page_numbers?.[0] ?? 1}`;
  return h(
    'li',
    {
      class: `source${cited ? ' cited' : ''}`,
      'data-chunk': s.chunk_id,
      ...(s.label ? { 'data-label': s.label } : {}),
    },
    h('a', { href }, `${s.label ? `[${s.label}] ` : ''}${s.section_path?.join(' › ') || s.chunk_id}`),
    cited ? h('span', { class: 'badge cited-mark' }, 'cited') : null,
    h('span', { class: 'muted' }, ` p. ${(s.page_numbers ?? []).join(', ')} `),
    typeof s.score === 'number' ? relevance(s.score) : null,
    h('div', { class: 'source-text' }, s.text),
  );
}
